/*
 * RareErrorCleaned: the clean twin of leaks.RareErrorLeak. Every 10th send still times out, but
 * the connection is given back in a finally block on both paths.
 *
 * Expected:      CLEAN (not reported)
 * Watched field: STATIC_FIELD corpus.clean.RareErrorCleaned.leased -> java.util.HashSet
 *                (declared Set): empty between loops (one connection during a loop)
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 0 connections; JVM live
 *                objects +0 per loop after loop 7
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: not
 *                reported (7 loops, 3 snapshots), exit 0
 * Shark:         not reported
 */
package corpus.clean;

import corpus.app.Connection;
import java.util.HashSet;
import java.util.Set;

public class RareErrorCleaned implements Runnable {
    private static Set<Connection> leased = new HashSet<>();

    private int loop;
    private int timeouts;
    private long bytesSent;

    @Override
    public void run() {
        loop++;
        Connection connection = new Connection(loop, "db-" + (loop % 3));
        leased.add(connection);
        try {
            if (loop % 10 == 0) {
                timeouts++;
                return;
            }
            bytesSent += connection.send("order " + loop);
        } finally {
            leased.remove(connection);
        }
    }
}
