/*
 * PublishesItsFieldLeak: a static list (declared List, holding an ArrayList) that gains one Item
 * per loop, and whose value the code also keeps in a second field, `lastSeen`, at the end of
 * every loop (as code does that caches a reference it was handed). Without heapgrowth's agent
 * attribution can only put a recording proxy into `items`; the last attribution loop then
 * leaves the proxy in `lastSeen`, where it stays after the proxy is taken out of `items`.
 *
 * Expected:      LEAK
 * Growing node:  STATIC_FIELD corpus.attribution.PublishesItsFieldLeak.items -> java.util.ArrayList
 *                => corpus.app.Item (lastSeen, declared first, reaches the same list; the path
 *                goes through items, the field declared last)
 * Growth:        +1 corpus.app.Item per loop (3 objects)
 * Growing call:  corpus.attribution.PublishesItsFieldLeak.run(PublishesItsFieldLeak.java:33)
 * Attribution:   with the agent, a watch on ArrayList.size (the scenario sees nothing); with
 *                --no-agent, a proxy, and the report says the scenario kept it in another field
 */
package corpus.attribution;

import corpus.app.Item;
import java.util.ArrayList;
import java.util.List;

public class PublishesItsFieldLeak implements Runnable {
    /** What the code last saw in items: declared before it, so the path goes through items. */
    private static Object lastSeen;
    private static List<Item> items = new ArrayList<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        items.add(new Item("published-" + loop, loop)); // GROWS
        lastSeen = items;
    }
}
