/*
 * CachedIntegerLeak: a client records how many retries each request needed (0 to 3, the pattern
 * loop % 4) in a list that is never trimmed. Autoboxing takes the values from Integer's cache
 * (-128..127), so the list gains references to 4 Integer objects that existed before the run.
 *
 * Expected:      LEAK
 * Growing field: STATIC_FIELD corpus.leaks.CachedIntegerLeak.retries -> java.util.ArrayList
 *                (declared List, not final) => java.lang.Integer (values 0..3, the elements of
 *                STATIC_FIELD java.lang.Integer$IntegerCache.cache -> Integer[256], a JDK root
 *                that also holds them)
 * Growth:        +1 reference per loop, 0 new objects but ArrayList.elementData when it fills
 *                (10, 15, 22, 33, ...)
 * Growing call:  corpus.leaks.CachedIntegerLeak.run(CachedIntegerLeak.java:37)
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7, 11, 19, 35, 67, 131,
 *                259, 515 references (3, then 4 distinct Integers); elementData 10, 10, 10, 15, 22,
 *                49, 73, 163, 366, 549; JVM live objects +0 per loop after loop 7
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: not
 *                reported: "no growing objects after 7 loops in 3 snapshots", exit 0 (MISSED)
 * Shark:         not run; by its rule BLIND SPOT: no child gains objects (and the Integers'
 *                shortest path may run through Integer$IntegerCache)
 */
package corpus.leaks;

import java.util.ArrayList;
import java.util.List;

public class CachedIntegerLeak implements Runnable {
    private static List<Integer> retries = new ArrayList<>();

    private int loop;
    private long requests;

    @Override
    public void run() {
        loop++;
        int attempts = send(loop);
        retries.add(attempts); // GROWS
    }

    /** Sends one request; returns how many retries it needed. */
    private int send(int request) {
        requests++;
        return request % 4;
    }
}
