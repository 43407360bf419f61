/*
 * RareErrorLeak: every loop leases a connection, sends a message and gives the connection back.
 * Every 10th send times out (loops 10, 20, 30, ...); that path returns early without giving the
 * connection back, so the pool's leased set keeps one connection per 10 loops.
 *
 * Expected:      LEAK
 * Growing field: STATIC_FIELD corpus.leaks.RareErrorLeak.leased -> java.util.HashSet
 *                (declared Set, not final) -> HashSet.map -> java.util.HashMap
 *                => HashMap$Node.key -> corpus.app.Connection
 * Growth:        +1 Connection every 10th loop (5 objects: HashMap$Node, Connection, its host
 *                String + byte[], its byte[64] buffer; the value is HashSet's shared PRESENT);
 *                0 on the other nine loops
 * Growing call:  corpus.leaks.RareErrorLeak.run(RareErrorLeak.java:38) (runs every loop; only
 *                the connections of timed-out loops stay)
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 0, 0, 0, 1, 1, 3, 6, 13, 25,
 *                51 connections (loop / 10, rounded down); JVM live objects +0.5 per loop
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: not
 *                reported: "no growing objects after 7 loops in 3 snapshots", exit 0 (MISSED)
 * Shark:         not run; by its rule BLIND SPOT: +1 per 10 loops
 */
package corpus.leaks;

import corpus.app.Connection;
import java.util.HashSet;
import java.util.Set;

public class RareErrorLeak implements Runnable {
    private static Set<Connection> leased = new HashSet<>();

    private int loop;
    private int timeouts;
    private long bytesSent;

    @Override
    public void run() {
        loop++;
        Connection connection = new Connection(loop, "db-" + (loop % 3));
        leased.add(connection); // GROWS
        if (loop % 10 == 0) {
            timeouts++;
            return; // Bug: the connection is not given back on a timeout.
        }
        bytesSent += connection.send("order " + loop);
        leased.remove(connection);
    }
}
