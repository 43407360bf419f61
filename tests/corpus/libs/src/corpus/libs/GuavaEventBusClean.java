/*
 * GuavaEventBusClean: the twin of GuavaEventBusLeak that unregisters its screen when it closes
 * (register, post, unregister in a finally): the bus's subscriber set is empty between loops.
 *
 * Expected:      CLEAN (not reported)
 * Library:       com.google.guava:guava 33.8.0-jre
 * Watched field: INSTANCE_FIELD com.google.common.eventbus.SubscriberRegistry.subscribers
 *                  -> ConcurrentHashMap: one key (GuavaEventBusClean$OrderPlaced) from loop 1 on,
 *                whose CopyOnWriteArraySet is empty between loops
 * Growth:        0 (register adds one Subscriber$SynchronizedSubscriber, unregister removes it)
 * Measured:      subscribers after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 0 at every
 *                checkpoint; 21 objects reachable from the scenario at every checkpoint; both
 *                driver runs
 * heapgrowth:    at 2f1f225 (default schedule): not reported in 5 of 5 runs ("no growing
 *                objects after 7 loops in 3 snapshots")
 */
package corpus.libs;

import com.google.common.eventbus.EventBus;
import com.google.common.eventbus.Subscribe;

public class GuavaEventBusClean implements Runnable {
    /** The event posted on every loop. */
    record OrderPlaced(int orderId) {}

    /** A screen that shows the latest order. */
    public static final class OrderScreen {
        private final String title;
        private int lastOrderId;

        OrderScreen(String title) {
            this.title = title;
        }

        @Subscribe
        public void onOrder(OrderPlaced event) {
            lastOrderId = event.orderId();
        }

        @Override
        public String toString() {
            return title + " #" + lastOrderId;
        }
    }

    private final EventBus bus = new EventBus("orders");

    private int loop;

    @Override
    public void run() {
        loop++;
        OrderScreen screen = new OrderScreen("orders-" + loop);
        bus.register(screen);
        try {
            bus.post(new OrderPlaced(loop));
        } finally {
            bus.unregister(screen);
        }
    }
}
