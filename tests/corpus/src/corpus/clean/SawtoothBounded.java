/*
 * SawtoothBounded: the clean twin of leaks.SawtoothLeak. Every loop queues 3 events; every second
 * loop the flusher takes a batch of 6, which keeps up with the 6 events that arrive in two loops:
 * the queue oscillates between 3 and 0 and does not grow.
 *
 * Expected:      CLEAN (not reported)
 * Watched field: STATIC_FIELD corpus.clean.SawtoothBounded.pending -> java.util.ArrayDeque
 *                (declared Deque) => corpus.app.Item: 3 after every odd loop, 0 after every even
 *                loop (6 new Items per 2 loops, 6 dropped); ArrayDeque.elements keeps its 17 slots
 * Bound reached: loop 1 (3 events), loop 2 (0): the oscillation is the same from the start
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3 events (0 after every even
 *                loop: 3, 0, 3, 0, ... for loops 1..20); elements 17 slots; JVM live objects +0 per
 *                loop after loop 7
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: not
 *                reported (7 loops, 3 snapshots), exit 0
 * Shark:         not reported (same count at every dump after an odd loop, though the objects
 *                are new)
 */
package corpus.clean;

import corpus.app.Item;
import java.util.ArrayDeque;
import java.util.Deque;

public class SawtoothBounded implements Runnable {
    public static final int ARRIVALS = 3;
    public static final int FLUSH_BATCH = 6;

    private static Deque<Item> pending = new ArrayDeque<>();

    private int loop;
    private long flushedCents;

    @Override
    public void run() {
        loop++;
        for (int i = 0; i < ARRIVALS; i++) {
            pending.addLast(new Item("event-" + loop + "-" + i, i));
        }
        if (loop % 2 == 0) {
            for (int i = 0; i < FLUSH_BATCH && !pending.isEmpty(); i++) {
                flushedCents += pending.pollFirst().priceCents();
            }
        }
    }
}
