/*
 * SameListenerLeak: one listener object, made once in the constructor, is subscribed to the price
 * feed again on every loop ("make sure we are subscribed" on each refresh). The feed keeps
 * duplicates, so its list gains one more reference to the same object per loop.
 *
 * Expected:      LEAK
 * Growing field: INSTANCE_FIELD corpus.app.PriceFeed.subscribers -> java.util.ArrayList
 *                (declared List, not final), reached through
 *                STATIC_FIELD corpus.leaks.SameListenerLeak.feed -> corpus.app.PriceFeed
 * Growth:        +1 reference per loop, 0 new objects: every element is the same
 *                SameListenerLeak$TickCounter (also held by INSTANCE_FIELD
 *                SameListenerLeak.ticker). Only ArrayList.elementData is replaced when it fills
 *                (capacity 10, 15, 22, 33, 49, 73, 109, 163, 244, 366, 549)
 * Growing call:  corpus.app.PriceFeed.subscribe(PriceFeed.java:14)
 *                  via corpus.leaks.SameListenerLeak.run(SameListenerLeak.java:49)
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7, 11, 19, 35, 67, 131,
 *                259, 515 subscriptions, always 1 distinct object; elementData 10, 10, 10, 15, 22,
 *                49, 73, 163, 366, 549 slots; JVM live objects +0 per loop after loop 7
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: not
 *                reported: "no growing objects after 7 loops in 3 snapshots", exit 0 (MISSED)
 * Shark:         not run; by its rule BLIND SPOT: no child gains objects (the same listener every
 *                time)
 */
package corpus.leaks;

import corpus.app.Listener;
import corpus.app.PriceFeed;

public class SameListenerLeak implements Runnable {
    /** Counts the ticks it hears. One instance for the whole run. */
    static final class TickCounter implements Listener {
        private int ticks;

        @Override
        public void onEvent(String topic) {
            ticks++;
        }
    }

    private static PriceFeed feed = new PriceFeed();

    private final Listener ticker = new TickCounter();

    private int loop;

    @Override
    public void run() {
        loop++;
        feed.subscribe(ticker); // VIA (PriceFeed.subscribe grows)
        feed.publish("tick-" + loop);
    }
}
