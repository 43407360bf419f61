/*
 * DeepLocalLeak: an order-tracking thread, started once in the constructor, keeps the open
 * orders in a HashMap that is a local variable of its run() and is passed down the calls,
 * run() -> serve(open) -> handle(open) -> track(open, order); the orders are never marked
 * shipped (removed), so the map only grows. While the thread waits for the next order it is
 * parked in SynchronousQueue.take inside handle(open): the map is held by the frames of handle
 * and serve (a parameter, live) several frames below the top of the stack, and the add happens
 * one call deeper, in track, which is not on the stack between loops.
 *
 * Expected:      LEAK
 * Growing node:  the java.util.HashMap passed as `open` (a JavaFrame root of the thread
 *                "order-tracker": the frames DeepLocalLeak$Tracker.handle and .serve, below
 *                SynchronousQueue.take) : GcRoot(ThreadObject "order-tracker") -> LOCAL
 *                -> HashMap => corpus.app.Item (key: the sku String)
 * Growth:        +1 entry per loop (4 objects: HashMap$Node, Item, sku String, byte[]; the
 *                table is replaced when it resizes)
 * Growing call:  corpus.attribution.DeepLocalLeak$Tracker.track(DeepLocalLeak.java:77)
 *                  via Tracker.handle(DeepLocalLeak.java:72), Tracker.serve(DeepLocalLeak.java:63),
 *                  Tracker.run(DeepLocalLeak.java:57), on the tracker thread; the scenario hands
 *                  the order over at DeepLocalLeak.java:102 (SynchronousQueue.put)
 * Settled:       put() returns once the tracker has taken the order; run() then yields until
 *                the tracker has counted it (a volatile counter, written after the put) and is
 *                WAITING again, no clock. The constructor waits the same way for the first take.
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 1 in 3 of 3; node GcRoot(ThreadObject "order-tracker") -> LOCAL
 *                DeepLocalLeak$Tracker.handle (source DeepLocalLeak.java:71, the take) -> HashMap,
 *                children at loops 3, 7, 15, 31, 124, 496, 1000: 6, 14, 30, 62, 248, 992, 2000
 *                ([key] String, [x] Item). Attribution (all 3): not_attributed, "the node is held
 *                by a local variable of a running method (LOCAL
 *                corpus.attribution.DeepLocalLeak$Tracker); heapgrowth watches fields and
 *                containers, not stack frames"
 */
package corpus.attribution;

import corpus.app.Item;
import corpus.app.Threads;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.SynchronousQueue;

public class DeepLocalLeak implements Runnable {
    public static final long STACK_SIZE = 64 * 1024;

    /** Tracks open orders. Bug: an order is never removed when it ships. */
    static final class Tracker implements Runnable {
        private final BlockingQueue<Item> inbox;
        private volatile int received;

        Tracker(BlockingQueue<Item> inbox) {
            this.inbox = inbox;
        }

        @Override
        public void run() {
            Map<String, Item> open = new HashMap<>();
            serve(open); // VIA
        }

        private void serve(Map<String, Item> open) {
            try {
                while (true) {
                    handle(open); // VIA
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private void handle(Map<String, Item> open) throws InterruptedException {
            Item order = inbox.take();
            track(open, order); // VIA
            received++;
        }

        private void track(Map<String, Item> open, Item order) {
            open.put(order.sku(), order); // GROWS
        }

        int received() {
            return received;
        }
    }

    private final BlockingQueue<Item> inbox = new SynchronousQueue<>();
    private final Tracker tracker = new Tracker(inbox);
    private final Thread trackerThread;

    private int loop;

    public DeepLocalLeak() {
        trackerThread = new Thread(null, tracker, "order-tracker", STACK_SIZE);
        trackerThread.setDaemon(true);
        trackerThread.start();
        Threads.awaitWaiting(trackerThread);
    }

    @Override
    public void run() {
        loop++;
        Item order = new Item("order-" + loop, 100L * loop);
        handOver(order); // VIA (hand-off: Tracker.track grows, on the tracker thread)
        while (tracker.received() < loop) {
            Thread.yield();
        }
        Threads.awaitWaiting(trackerThread);
    }

    private void handOver(Item order) {
        try {
            inbox.put(order);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
