/*
 * LruMapBounded: an LRU cache of 150 entries (a LinkedHashMap in access order whose
 * removeEldestEntry evicts above 150: corpus.app.LruCache). Every loop puts a new key and reads
 * the previous one; it fills for 150 loops, then levels off.
 *
 * Expected:      CLEAN (not reported), but only if the tool checks for a plateau after loop 150
 * Watched field: STATIC_FIELD corpus.clean.LruMapBounded.sessions -> corpus.app.LruCache
 *                (declared Map) => LinkedHashMap$Entry (key String, value corpus.app.Item):
 *                +1 entry per loop (6 objects: Entry, key String + byte[], Item + sku String +
 *                byte[]) for loops 1..150, then 150 forever; the table (256 slots) is made at
 *                the first put and never replaced
 * Bound reached: loop 150
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7, 11, 19, 35, 67, 131,
 *                150, 150 entries; table 256 slots throughout; checked after every loop: 150 first
 *                after loop 150
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: FALSE
 *                POSITIVE, exit 1: STATIC_FIELD LruMapBounded.sessions -> LruCache, children [key]
 *                String and [x] Item, 6, 10, 14, 18, 22, 34, 46 objects (23 loops: the bound is
 *                reached at 150)
 * Shark:         FALSE POSITIVE with the default schedule (+2 in every dump for 150 loops)
 */
package corpus.clean;

import corpus.app.Item;
import corpus.app.LruCache;
import java.util.Map;

public class LruMapBounded implements Runnable {
    public static final int CAPACITY = 150;

    private static Map<String, Item> sessions = new LruCache<>(CAPACITY);

    private int loop;

    @Override
    public void run() {
        loop++;
        String key = "session-" + loop;
        sessions.put(key, new Item("cart-" + loop, loop));
        sessions.get("session-" + (loop - 1));
    }
}
