/*
 * MethodRefUnsubscribeLeak: a view subscribes to the price feed with a method reference and
 * unsubscribes with "the same" method reference when it is done. A method reference that
 * captures `this` is a new object each time it is evaluated, and the feed's list compares with
 * equals (identity for a lambda object), so unsubscribe removes nothing: the list gains one
 * subscription per loop. The fix is to keep the reference in a field and pass that object to
 * both calls (the clean twin, MethodRefKeptUnsubscribed).
 *
 * Expected:      LEAK
 * Growing field: INSTANCE_FIELD corpus.app.PriceFeed.subscribers -> java.util.ArrayList
 *                (declared List, not final), reached through
 *                STATIC_FIELD corpus.leaks.MethodRefUnsubscribeLeak.feed -> corpus.app.PriceFeed
 * Growth:        +1 subscription per loop (the method reference's object,
 *                MethodRefUnsubscribeLeak$$Lambda, which holds the scenario)
 * Growing call:  corpus.app.PriceFeed.subscribe(PriceFeed.java:14)
 *                  via corpus.leaks.MethodRefUnsubscribeLeak.run(MethodRefUnsubscribeLeak.java:43)
 * Measured:      heapgrowth on branch order (debug build), default schedule, JSON, 3 runs: exit 1
 *                in 3 of 3; node INSTANCE_FIELD PriceFeed.subscribers -> ArrayList, children at
 *                loops 3, 7, 15, 31, 124, 496, 1000: 3, 7, 15, 31, 124, 496, 1000
 *                MethodRefUnsubscribeLeak$$Lambda. Attribution (all 3): calls to add(), 1 stack
 *                (4 calls) at PriceFeed.java:14, and (with the agent, issue 32) the hint "4
 *                call(s) to remove() at corpus.app.PriceFeed.unsubscribe(PriceFeed.java:19)
 *                removed nothing"
 */
package corpus.leaks;

import corpus.app.PriceFeed;

public class MethodRefUnsubscribeLeak implements Runnable {
    private static PriceFeed feed = new PriceFeed();

    private int ticks;

    private int loop;

    void onTick(String tick) {
        ticks++;
    }

    @Override
    public void run() {
        loop++;
        feed.subscribe(this::onTick); // VIA (PriceFeed.subscribe grows)
        feed.publish("tick-" + loop);
        // Bug: another method reference object, equal to nothing in the feed.
        feed.unsubscribe(this::onTick);
    }
}
