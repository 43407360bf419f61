/*
 * StaticListLeak: a static List<Item> that gets one new Item per loop and is never trimmed.
 *
 * Expected:      LEAK
 * Growing field: STATIC_FIELD corpus.leaks.StaticListLeak.items -> java.util.ArrayList
 *                (declared as the interface List, not final)
 * Growth:        +1 corpus.app.Item per loop (3 objects per loop: the Item, its sku String
 *                and the String's byte[])
 * Growing call:  corpus.leaks.StaticListLeak.run(StaticListLeak.java:26)
 * Shark:         reported (one child class, +2 per dump of 2 loops)
 */
package corpus.leaks;

import corpus.app.Item;
import java.util.ArrayList;
import java.util.List;

public class StaticListLeak implements Runnable {
    private static List<Item> items = new ArrayList<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        items.add(new Item("sku-" + loop, 100L * loop)); // GROWS
    }
}
