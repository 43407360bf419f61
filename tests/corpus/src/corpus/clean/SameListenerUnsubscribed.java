/*
 * SameListenerUnsubscribed: the clean twin of leaks.SameListenerLeak. The same listener object is
 * subscribed on every loop, but unsubscribed when the loop is done with it.
 *
 * Expected:      CLEAN (not reported)
 * Watched field: INSTANCE_FIELD corpus.app.PriceFeed.subscribers -> java.util.ArrayList
 *                (declared List), reached through
 *                STATIC_FIELD corpus.clean.SameListenerUnsubscribed.feed -> corpus.app.PriceFeed:
 *                empty between loops (1 element during a loop); its elementData (capacity 10)
 *                is made in loop 1 and never replaced
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 0 subscriptions; elementData
 *                10 slots throughout; JVM live objects +0 per loop after loop 7
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: not
 *                reported (7 loops, 3 snapshots), exit 0
 * Shark:         not reported
 */
package corpus.clean;

import corpus.app.Listener;
import corpus.app.PriceFeed;

public class SameListenerUnsubscribed implements Runnable {
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
        feed.subscribe(ticker);
        feed.publish("tick-" + loop);
        feed.unsubscribe(ticker);
    }
}
