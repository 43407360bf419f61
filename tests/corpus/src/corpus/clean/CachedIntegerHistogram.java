/*
 * CachedIntegerHistogram: the clean twin of leaks.CachedIntegerLeak. The retry counts go into a
 * histogram (retries -> how many requests needed that many) instead of a list: 4 keys, forever.
 *
 * Expected:      CLEAN (not reported)
 * Watched field: STATIC_FIELD corpus.clean.CachedIntegerHistogram.histogram -> java.util.HashMap
 *                (declared Map): 1, 2, 3, 4 entries after loops 1..4, then 4 forever. Keys 0..3
 *                and counts up to 127 come from Integer's cache; from loop 509 on (a count past
 *                127) every loop replaces one value with a new Integer (the old one is garbage):
 *                still 4 entries and 4 values
 * Bound reached: loop 4
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 4, 4, 4, 4, 4, 4, 4, 4, 4
 *                entries; counts at loop 515: 0=128, 1=129, 2=129, 3=129 (past the cache); after
 *                every loop 1..4: 1, 2, 3, 4
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: not
 *                reported (7 loops, 3 snapshots), exit 0
 * Shark:         not reported
 */
package corpus.clean;

import java.util.HashMap;
import java.util.Map;

public class CachedIntegerHistogram implements Runnable {
    private static Map<Integer, Integer> histogram = new HashMap<>();

    private int loop;
    private long requests;

    @Override
    public void run() {
        loop++;
        int attempts = send(loop);
        histogram.merge(attempts, 1, Integer::sum);
    }

    /** Sends one request; returns how many retries it needed. */
    private int send(int request) {
        requests++;
        return request % 4;
    }
}
