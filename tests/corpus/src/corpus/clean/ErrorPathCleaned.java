/*
 * ErrorPathCleaned: the clean twin of leaks.ErrorPathLeak. Every 5th charge is still declined,
 * but the in-flight entry is removed in a finally block, on both paths.
 *
 * Expected:      CLEAN (not reported)
 * Watched field: STATIC_FIELD corpus.clean.ErrorPathCleaned.inFlight -> java.util.HashMap
 *                (declared Map): empty between loops (one entry during a loop); its table (16
 *                slots) is made in loop 1 and never replaced
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 0 entries; table 16 slots; JVM
 *                live objects +0 per loop after loop 7
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: not
 *                reported (9 loops, 4 snapshots), exit 0
 * Shark:         not reported
 */
package corpus.clean;

import corpus.app.Payload;
import java.util.HashMap;
import java.util.Map;

public class ErrorPathCleaned implements Runnable {
    private static Map<Integer, Payload> inFlight = new HashMap<>();

    private int loop;
    private int declined;

    @Override
    public void run() {
        loop++;
        Payload request = new Payload(loop);
        inFlight.put(loop, request);
        try {
            charge(request);
        } catch (IllegalStateException e) {
            declined++;
        } finally {
            inFlight.remove(loop);
        }
    }

    private static void charge(Payload request) {
        if (request.id() % 5 == 0) {
            throw new IllegalStateException("card declined for request " + request.id());
        }
    }
}
