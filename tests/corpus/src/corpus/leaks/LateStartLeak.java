/*
 * LateStartLeak: does nothing for the first 6 loops (longer than the default warm-up of 3
 * loops and the first two dumps, after loops 3 and 5), then adds one Item per loop from loop 7.
 * The list exists (empty) from class initialization.
 *
 * Expected:      LEAK
 * Growing field: STATIC_FIELD corpus.leaks.LateStartLeak.items -> java.util.ArrayList
 *                (declared List, not final)
 * Growth:        0 objects in loops 1-6, then +1 corpus.app.Item per loop (3 objects per loop
 *                with the sku String and byte[])
 * Growing call:  corpus.leaks.LateStartLeak.run(LateStartLeak.java:36)
 * Shark:         BLIND SPOT: with the default schedule (dumps after loops 3, 5, 7, ...) the
 *                second dump finds nothing growing and shark stops there; and a node whose
 *                children appear only after the first dump is never a candidate
 */
package corpus.leaks;

import corpus.app.Item;
import java.util.ArrayList;
import java.util.List;

public class LateStartLeak implements Runnable {
    /** Loops that do nothing before the leak starts. */
    public static final int QUIET_LOOPS = 6;

    private static List<Item> items = new ArrayList<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        if (loop <= QUIET_LOOPS) {
            return;
        }
        items.add(new Item("late-" + loop, loop)); // GROWS
    }
}
