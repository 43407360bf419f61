/*
 * DeepLocalShipped: clean twin of DeepLocalLeak. The same tracker thread and local HashMap
 * passed down run() -> serve -> handle -> track, but each order is removed again when it ships
 * (ship, right after track), so the map is empty between loops.
 *
 * Expected:      CLEAN
 * Growing node:  none: the local HashMap `open` of the "order-tracker" thread is empty between
 *                loops
 * Growth:        0
 * Settled:       as DeepLocalLeak
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 0 in 3 of 3, nothing reported, nothing leveled off (31 loops, 4
 *                snapshots)
 */
package corpus.attribution;

import corpus.app.Item;
import corpus.app.Threads;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.SynchronousQueue;

public class DeepLocalShipped implements Runnable {
    public static final long STACK_SIZE = 64 * 1024;

    /** Tracks open orders until they ship. */
    static final class Tracker implements Runnable {
        private final BlockingQueue<Item> inbox;
        private volatile int received;
        private long shippedCents;

        Tracker(BlockingQueue<Item> inbox) {
            this.inbox = inbox;
        }

        @Override
        public void run() {
            Map<String, Item> open = new HashMap<>();
            serve(open);
        }

        private void serve(Map<String, Item> open) {
            try {
                while (true) {
                    handle(open);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private void handle(Map<String, Item> open) throws InterruptedException {
            Item order = inbox.take();
            track(open, order);
            ship(open, order.sku());
            received++;
        }

        private void track(Map<String, Item> open, Item order) {
            open.put(order.sku(), order);
        }

        private void ship(Map<String, Item> open, String sku) {
            Item shipped = open.remove(sku);
            shippedCents += shipped.priceCents();
        }

        int received() {
            return received;
        }
    }

    private final BlockingQueue<Item> inbox = new SynchronousQueue<>();
    private final Tracker tracker = new Tracker(inbox);
    private final Thread trackerThread;

    private int loop;

    public DeepLocalShipped() {
        trackerThread = new Thread(null, tracker, "order-tracker", STACK_SIZE);
        trackerThread.setDaemon(true);
        trackerThread.start();
        Threads.awaitWaiting(trackerThread);
    }

    @Override
    public void run() {
        loop++;
        Item order = new Item("order-" + loop, 100L * loop);
        handOver(order);
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
