/*
 * GuavaInternerChurnBounded: clean twin of GuavaInternerChurnLeak. The same 25,000 temporary
 * tokens per loop in a per-request interner, and the same long-lived strong interner, which
 * interns the route template, of which there are 4: 4 entries from loop 4 on.
 *
 * Expected:      CLEAN
 * Library:       com.google.guava:guava 33.8.0-jre
 * Growing node:  none: the interner holds 4 entries from loop 4 on
 * Growth:        +1 entry in loops 1 to 4, then 0
 * Measured:      main at c171fb7, debug build, default schedule, JSON, 3 runs: exit 0 in 3 of 3,
 *                nothing reported (31 loops). Branch pass2, 10 runs on JDK 17 and 10 on JDK 25:
 *                exit 0 in 20 of 20
 */
package corpus.libs;

import com.google.common.collect.Interner;
import com.google.common.collect.Interners;

public class GuavaInternerChurnBounded implements Runnable {
    /** Temporary tokens per loop, interned in a per-request interner. */
    private static final int CHURN = 25_000;

    private static final String[] ROUTES = {"orders", "carts", "customers", "invoices"};

    private final Interner<String> paths = Interners.newStrongInterner();

    private int loop;
    private long tokenLength;
    /** The last temporary token (it escapes, so the JIT cannot take its allocation away). */
    private String lastToken;

    @Override
    public void run() {
        loop++;
        // The request's own interner: its entries (of the class the long-lived one keeps) die
        // with it at the end of the loop.
        Interner<String> tokens = Interners.newStrongInterner();
        for (int i = 0; i < CHURN; i++) {
            String token = tokens.intern("token-" + loop + "-" + i);
            tokenLength += token.length();
            lastToken = token;
        }
        tokenLength += paths.intern("/" + ROUTES[loop % ROUTES.length] + "/{id}").length();
    }
}
