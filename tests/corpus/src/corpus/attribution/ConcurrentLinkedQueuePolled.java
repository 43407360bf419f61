/*
 * ConcurrentLinkedQueuePolled: clean twin of ConcurrentLinkedQueueLeak. The same static final
 * ConcurrentLinkedQueue outbox; the sender polls everything offered, in the same loop, so the
 * queue is empty between loops (its head is a dummy node with no item).
 *
 * Expected:      CLEAN
 * Growing node:  none: OUTBOX -> ConcurrentLinkedQueue, empty between loops
 * Growth:        0
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 0 in 3 of 3, nothing reported, nothing leveled off (31 loops, 4
 *                snapshots)
 */
package corpus.attribution;

import corpus.app.Item;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

public class ConcurrentLinkedQueuePolled implements Runnable {
    private static final Queue<Item> OUTBOX = new ConcurrentLinkedQueue<>();

    private int loop;
    private long sentCents;

    @Override
    public void run() {
        loop++;
        Item notification = new Item("notify-" + loop, loop);
        OUTBOX.offer(notification);
        Item next;
        while ((next = OUTBOX.poll()) != null) {
            sentCents += next.priceCents();
        }
    }
}
