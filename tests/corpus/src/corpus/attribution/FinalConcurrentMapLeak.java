/*
 * FinalConcurrentMapLeak: a static final Map holding a ConcurrentHashMap of sessions by id gets a
 * new key every loop and is never pruned. The field is final (no recording proxy can go in),
 * and ConcurrentHashMap is not a container heapgrowth watches: it links and counts its nodes
 * with Unsafe CAS (table slots, baseCount / CounterCell), so no JVMTI field-modification event
 * is raised by a put.
 *
 * Expected:      LEAK
 * Growing node:  STATIC_FIELD corpus.attribution.FinalConcurrentMapLeak.SESSIONS
 *                  -> java.util.concurrent.ConcurrentHashMap => corpus.app.Item (key: String)
 * Growth:        +1 entry per loop (ConcurrentHashMap$Node, Item, the key String + byte[]; the
 *                table is replaced when it resizes)
 * Growing call:  corpus.attribution.FinalConcurrentMapLeak.run(FinalConcurrentMapLeak.java:39)
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 1 in 3 of 3; node STATIC_FIELD FinalConcurrentMapLeak.SESSIONS ->
 *                ConcurrentHashMap, children at loops 3, 7, 15, 31, 124, 496, 1000: 6, 14, 30, 62,
 *                248, 992, 2000 ([key] String, [x] Item). Attribution (all 3): attributed,
 *                allocated at, 2 stacks (4 objects each):
 *                FinalConcurrentMapLeak.run(FinalConcurrentMapLeak.java:39) (the Item, allocated on
 *                the GROWS line) and StringConcatHelper.newString < ... <
 *                FinalConcurrentMapLeak.run(FinalConcurrentMapLeak.java:38) (the key String); the
 *                ConcurrentHashMap$Node allocated inside put is not named
 */
package corpus.attribution;

import corpus.app.Item;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

public class FinalConcurrentMapLeak implements Runnable {
    private static final Map<String, Item> SESSIONS = new ConcurrentHashMap<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        String id = "session-" + loop;
        SESSIONS.put(id, new Item(id, loop)); // GROWS
        // Bug: SESSIONS.remove(id) is never called when the session ends.
    }
}
