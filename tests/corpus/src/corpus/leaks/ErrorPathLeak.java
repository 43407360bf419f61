/*
 * ErrorPathLeak: every payment is tracked in an in-flight map while it is charged, and removed
 * when the charge succeeds. Every 5th charge is declined (loops 5, 10, 15, ...); the catch block
 * counts the failure but forgets the in-flight entry, so one request stays per 5 loops.
 *
 * Expected:      LEAK
 * Growing field: STATIC_FIELD corpus.leaks.ErrorPathLeak.inFlight -> java.util.HashMap
 *                (declared Map, not final) => HashMap$Node (key Integer, value corpus.app.Payload)
 * Growth:        +1 entry every 5th loop (4 objects: HashMap$Node, Integer key, Payload and its
 *                byte[128]; 3 up to loop 125, whose keys come from Integer's cache); 0 on the
 *                other loops (put, then remove); the table is replaced at 13, 25, 49, 97 entries
 * Growing call:  corpus.leaks.ErrorPathLeak.run(ErrorPathLeak.java:37) (runs every loop; only
 *                the entries of declined loops stay)
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 0, 1, 1, 2, 3, 7, 13, 26, 51,
 *                103 entries (loop / 5, rounded down); table 16 slots up to loop 35, then 32, 64,
 *                128, 256; JVM live objects +0.8 per loop from loop 131 on
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: not
 *                reported: "no growing objects after 9 loops in 4 snapshots", exit 0 (MISSED)
 * Shark:         not run; by its rule BLIND SPOT: +1 per 5 loops, below 2 per dump
 */
package corpus.leaks;

import corpus.app.Payload;
import java.util.HashMap;
import java.util.Map;

public class ErrorPathLeak implements Runnable {
    private static Map<Integer, Payload> inFlight = new HashMap<>();

    private int loop;
    private int declined;

    @Override
    public void run() {
        loop++;
        Payload request = new Payload(loop);
        inFlight.put(loop, request); // GROWS
        try {
            charge(request);
            inFlight.remove(loop);
        } catch (IllegalStateException e) {
            declined++;
            // Bug: the request is not removed from inFlight on this path.
        }
    }

    private static void charge(Payload request) {
        if (request.id() % 5 == 0) {
            throw new IllegalStateException("card declined for request " + request.id());
        }
    }
}
