/*
 * SawtoothLeak: every loop queues 3 events; every second loop (even loops) a flusher takes a batch
 * of 4 from the head of the queue. The batch is too small for the 6 events that arrive in two
 * loops, so the queue rises by 3, falls by 1, rises by 3, ... and gains 2 events every 2 loops.
 *
 * Expected:      LEAK
 * Growing field: STATIC_FIELD corpus.leaks.SawtoothLeak.pending -> java.util.ArrayDeque
 *                (declared Deque, not final) => corpus.app.Item
 * Growth:        loop by loop +3, -1, +3, -1, ...: n + 2 events after an odd loop n, n after an
 *                even loop n; +2 per 2 loops (+6 Items made, 4 dropped, each Item 3 objects with
 *                its sku String and byte[]). The elements slide along ArrayDeque.elements (head and
 *                tail move), the array grows to 36, 74, 111, 166, 249, 373, 559 slots
 * Growing call:  corpus.leaks.SawtoothLeak.run(SawtoothLeak.java:42) (3 calls per loop)
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 5, 7, 9, 13, 21, 37, 69, 133,
 *                261, 517 events (n + 2); after every loop 1..10: 3, 2, 5, 4, 7, 6, 9, 8, 11, 10;
 *                elements 17, 17, 17, 17, 36, 74, 74, 166, 373, 559 slots; JVM live objects +3.00
 *                per loop
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: reported,
 *                exit 1: STATIC_FIELD SawtoothLeak.pending -> ArrayDeque, children 5, 7, 9, 11, 13,
 *                19, 25 Items at its 7 snapshots
 * Shark:         not run; by its rule reported (+2 Items per dump after odd loops)
 */
package corpus.leaks;

import corpus.app.Item;
import java.util.ArrayDeque;
import java.util.Deque;

public class SawtoothLeak implements Runnable {
    public static final int ARRIVALS = 3;
    public static final int FLUSH_BATCH = 4;

    private static Deque<Item> pending = new ArrayDeque<>();

    private int loop;
    private long flushedCents;

    @Override
    public void run() {
        loop++;
        for (int i = 0; i < ARRIVALS; i++) {
            pending.addLast(new Item("event-" + loop + "-" + i, i)); // GROWS
        }
        if (loop % 2 == 0) {
            for (int i = 0; i < FLUSH_BATCH && !pending.isEmpty(); i++) {
                flushedCents += pending.pollFirst().priceCents();
            }
        }
    }
}
