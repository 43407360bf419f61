/*
 * SlowLeak: grows by one Item every second loop (loops 2, 4, 6, ...), forever.
 *
 * Expected:      LEAK
 * Growing field: STATIC_FIELD corpus.leaks.SlowLeak.items -> java.util.ArrayList
 *                (declared List, not final)
 * Growth:        +1 corpus.app.Item every 2 loops (3 objects with the sku String and byte[]),
 *                so +1 per dump of 2 loops
 * Growing call:  corpus.leaks.SlowLeak.run(SlowLeak.java:28)
 * Shark:         BLIND SPOT: a child must gain at least `loops` (2) objects per dump; this one
 *                gains 1, so shark never reports it
 */
package corpus.leaks;

import corpus.app.Item;
import java.util.ArrayList;
import java.util.List;

public class SlowLeak implements Runnable {
    private static List<Item> items = new ArrayList<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        if (loop % 2 == 0) {
            items.add(new Item("slow-" + loop, loop)); // GROWS
        }
    }
}
