/*
 * GuavaEventBusLeak: every loop opens a screen that registers itself on a Guava EventBus
 * (com.google.common.eventbus.EventBus.register) to hear about orders, and the screen is never
 * unregistered: the bus keeps every screen, and every post reaches all of them.
 *
 * Expected:      LEAK
 * Library:       com.google.guava:guava 33.8.0-jre
 * Growing field: INSTANCE_FIELD com.google.common.eventbus.SubscriberRegistry.subscribers
 *                  -> java.util.concurrent.ConcurrentHashMap, whose one value (key: the class
 *                GuavaEventBusLeak$OrderPlaced) is a java.util.concurrent.CopyOnWriteArraySet
 *                (its al -> CopyOnWriteArrayList, whose array is replaced on every add), reached
 *                through INSTANCE_FIELD corpus.libs.GuavaEventBusLeak.bus -> EventBus
 *                  -> INSTANCE_FIELD EventBus.subscribers -> SubscriberRegistry
 * Growth:        +1 subscriber per loop, 4 objects: a Subscriber$SynchronizedSubscriber (the
 *                @Subscribe method is not @AllowConcurrentEvents) whose target is the
 *                GuavaEventBusLeak$OrderScreen, its title String + byte[]; the array +1 slot
 * Growing call:  corpus.libs.GuavaEventBusLeak.run(GuavaEventBusLeak.java:64)
 *                  (into EventBus.register -> SubscriberRegistry.register
 *                  -> CopyOnWriteArraySet.addAll)
 * Measured:      subscribers after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7, 11, 19,
 *                35, 67, 131, 259, 515; objects reachable from the scenario: 40, 48, 56, 72,
 *                104, 168, 296, 552, 1064, 2088 (+4 per loop); identical in both driver runs
 * heapgrowth:    at 2f1f225 (default schedule): reported in 3 of 3 runs, the node ARRAY_ENTRY
 *                ConcurrentHashMap.[x] -> CopyOnWriteArraySet, children 23 (6 new)
 *                Subscriber$SynchronizedSubscriber after 23 loops
 */
package corpus.libs;

import com.google.common.eventbus.EventBus;
import com.google.common.eventbus.Subscribe;

public class GuavaEventBusLeak implements Runnable {
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
        bus.register(screen); // GROWS
        bus.post(new OrderPlaced(loop));
        // The user navigates away here; bus.unregister(screen) is never called.
    }
}
