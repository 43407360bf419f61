/*
 * MethodRefKeptUnsubscribed: clean twin of MethodRefUnsubscribeLeak. The method reference is
 * made once and kept in a final field, and that one object is passed to subscribe and to
 * unsubscribe, so unsubscribe finds it and the feed's list is empty between loops.
 *
 * Expected:      CLEAN
 * Growing node:  none: STATIC_FIELD MethodRefKeptUnsubscribed.feed -> PriceFeed, its
 *                subscribers list empty between loops
 * Growth:        0
 * Measured:      heapgrowth on branch order (debug build), default schedule, JSON, 3 runs: exit
 *                0 in 3 of 3, nothing reported (31 loops, 4 snapshots)
 */
package corpus.clean;

import corpus.app.Listener;
import corpus.app.PriceFeed;

public class MethodRefKeptUnsubscribed implements Runnable {
    private static PriceFeed feed = new PriceFeed();

    private final Listener onTick = this::onTick;

    private int ticks;

    private int loop;

    void onTick(String tick) {
        ticks++;
    }

    @Override
    public void run() {
        loop++;
        feed.subscribe(onTick);
        feed.publish("tick-" + loop);
        feed.unsubscribe(onTick);
    }
}
