/*
 * SlowLoopLeak: a leak in a scenario whose loop takes about 20 ms (a sleep standing in for
 * real work), for the time budget: 1000 confirmation loops would take 20 s.
 *
 * Expected:      LEAK; with --time-budget 12 confirmation stops early and the report says so
 * Growing field: STATIC_FIELD corpus.leaks.SlowLoopLeak.items -> java.util.ArrayList
 *                ⇒ corpus.app.Item, +1 per loop
 * Growing call:  SlowLoopLeak.java:31
 */
package corpus.leaks;

import corpus.app.Item;
import java.util.ArrayList;
import java.util.List;

public class SlowLoopLeak implements Runnable {
    private static final long LOOP_MILLIS = 20;

    private static List<Item> items = new ArrayList<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        try {
            Thread.sleep(LOOP_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        items.add(new Item("slow-" + loop, loop)); // GROWS
    }
}
