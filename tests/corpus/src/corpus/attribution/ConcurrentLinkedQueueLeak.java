/*
 * ConcurrentLinkedQueueLeak: an outbox of notifications, a static final Queue holding a
 * ConcurrentLinkedQueue: every loop offers one, and the sender that should poll them was never
 * started. ConcurrentLinkedQueue links its nodes with VarHandle CAS (Node.next, tail, lazily),
 * so no field write a JVMTI watch would see; the field is final (no recording proxy).
 *
 * Expected:      LEAK
 * Growing node:  STATIC_FIELD corpus.attribution.ConcurrentLinkedQueueLeak.OUTBOX
 *                  -> java.util.concurrent.ConcurrentLinkedQueue
 *                  -> INSTANCE_FIELD ConcurrentLinkedQueue.head -> ConcurrentLinkedQueue$Node
 *                     (the Node.next chain, folded into one node) => Node.item -> corpus.app.Item
 * Growth:        +1 entry per loop (4 objects: ConcurrentLinkedQueue$Node, Item, sku String +
 *                byte[])
 * Growing call:  corpus.attribution.ConcurrentLinkedQueueLeak.run(ConcurrentLinkedQueueLeak.java:38)
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 1 in 3 of 3; node STATIC_FIELD ConcurrentLinkedQueueLeak.OUTBOX ->
 *                ConcurrentLinkedQueue, children at loops 3, 7, 15, 31, 124, 496, 1000: 3, 7, 15,
 *                31, 124, 496, 1000 Items ([x]; the Node chain is seen through). Attribution (all
 *                3): attributed, allocated at, 1 stack (4 objects):
 *                ConcurrentLinkedQueueLeak.run(ConcurrentLinkedQueueLeak.java:37) (new Item, the
 *                line before the offer), not the GROWS line
 */
package corpus.attribution;

import corpus.app.Item;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

public class ConcurrentLinkedQueueLeak implements Runnable {
    private static final Queue<Item> OUTBOX = new ConcurrentLinkedQueue<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        Item notification = new Item("notify-" + loop, loop); // ALLOCATED
        OUTBOX.offer(notification); // GROWS
        // Bug: nothing ever polls OUTBOX.
    }
}
