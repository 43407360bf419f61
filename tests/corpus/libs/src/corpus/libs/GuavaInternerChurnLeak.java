/*
 * GuavaInternerChurnLeak: a parser interns 25,000 temporary tokens per loop in a per-request Guava
 * strong interner (which dies with the request), then interns the request's path in a long-lived
 * one held in a final field; the path includes the loop's id, so one new entry per loop stays in
 * the long-lived interner among 25,000 short-lived entries of the same classes.
 *
 * Expected:      LEAK
 * Library:       com.google.guava:guava 33.8.0-jre
 * Growing node:  the entry tables, as in GuavaInternerLeak: ... INSTANCE_FIELD
 *                MapMakerInternalMap$Segment.table -> AtomicReferenceArray -> INSTANCE_FIELD
 *                AtomicReferenceArray.array -> Object[] => MapMakerInternalMap$
 *                StrongKeyDummyValueEntry (and its Linked subclass in bucket chains)
 * Growth:        +1 entry per loop (the entry, the interned String + byte[]); 25,000 temporary
 *                entries and Strings per loop besides
 * Growing call:  corpus.libs.GuavaInternerChurnLeak.run(GuavaInternerChurnLeak.java:55)
 * Attribution:   allocation sampling, allocated at :55 (the entries the intern call makes)
 * Measured:      main at c171fb7 (before issue 32's live cap), debug build, default schedule,
 *                JSON, 3 runs: exit 1 in 3 of 3; node AtomicReferenceArray.array -> Object[],
 *                children at loops 3, 7, 15, 31, 124, 496, 1000: 3, 7, 11, 21, 94, 385, 783;
 *                not attributed in 3 of 3: "... allocation sampling saw no new object of the
 *                node's growing classes stay below it during the attribution loops; allocation
 *                sampling stopped recording after 20000 events (its cap), and 112809 more were
 *                not recorded: the node's new objects may be among them". Branch pass2 (the cap
 *                counts live sampled objects), debug build, 10 runs on JDK 17 and 10 on JDK 25:
 *                exit 1 in 20 of 20, the same node, attributed in 20 of 20: "4 object(s)
 *                allocated" at :55, no caveat
 */
package corpus.libs;

import com.google.common.collect.Interner;
import com.google.common.collect.Interners;

public class GuavaInternerChurnLeak implements Runnable {
    /** Temporary tokens per loop, interned in a per-request interner. */
    private static final int CHURN = 25_000;

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
        tokenLength += paths.intern("/orders/" + loop).length(); // GROWS
    }
}
