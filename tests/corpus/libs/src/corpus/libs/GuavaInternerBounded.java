/*
 * GuavaInternerBounded: clean twin of GuavaInternerLeak. The same strong interner, but it interns
 * the route template, of which there are 4 (the id is not part of it): 4 entries from loop 4 on.
 *
 * Expected:      CLEAN
 * Library:       com.google.guava:guava 33.8.0-jre
 * Growing node:  none: the interner's tables hold 4 entries from loop 4 on
 * Growth:        +1 entry in loops 1 to 4, then 0
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 0 in 3 of 3, nothing reported, nothing leveled off (31 loops, 4
 *                snapshots)
 */
package corpus.libs;

import com.google.common.collect.Interner;
import com.google.common.collect.Interners;

public class GuavaInternerBounded implements Runnable {
    private static final String[] ROUTES = {"orders", "carts", "customers", "invoices"};

    private final Interner<String> paths = Interners.newStrongInterner();

    private int loop;
    private int totalLength;

    @Override
    public void run() {
        loop++;
        String path = "/" + ROUTES[loop % ROUTES.length] + "/{id}";
        String interned = paths.intern(path);
        totalLength += interned.length();
    }
}
