/*
 * LruMapLeak: the leak twin of clean.LruMapBounded: the same access-ordered LinkedHashMap, but a
 * plain one, without removeEldestEntry, so nothing is ever evicted.
 *
 * Expected:      LEAK
 * Growing field: STATIC_FIELD corpus.leaks.LruMapLeak.sessions -> java.util.LinkedHashMap
 *                (declared Map, not final; access order) => LinkedHashMap$Entry (key String,
 *                value corpus.app.Item)
 * Growth:        +1 entry per loop (6 objects: Entry, key String + byte[], Item + sku String +
 *                byte[]); the table is replaced at 13, 25, 49, 97, 193, 385 entries
 * Growing call:  corpus.leaks.LruMapLeak.run(LruMapLeak.java:35)
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7, 11, 19, 35, 67, 131,
 *                259, 515 entries; table 16, 16, 16, 16, 32, 64, 128, 256, 512, 1024 slots; JVM
 *                live objects +6.00 per loop
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: reported,
 *                exit 1: STATIC_FIELD LruMapLeak.sessions -> LinkedHashMap, children [key] String
 *                and [x] Item, 6, 10, 14, 18, 22, 34, 46 objects
 * Shark:         not run; by its rule reported
 */
package corpus.leaks;

import corpus.app.Item;
import java.util.LinkedHashMap;
import java.util.Map;

public class LruMapLeak implements Runnable {
    private static Map<String, Item> sessions = new LinkedHashMap<>(16, 0.75f, true);

    private int loop;

    @Override
    public void run() {
        loop++;
        String key = "session-" + loop;
        sessions.put(key, new Item("cart-" + loop, loop)); // GROWS
        sessions.get("session-" + (loop - 1));
    }
}
