/*
 * BoundedCache: an LRU cache (LinkedHashMap in access order with removeEldestEntry) capped at
 * 8 entries; every loop puts a new key, evicting the eldest once the cache holds 8.
 *
 * Expected:      CLEAN (not reported)
 * Watched field: STATIC_FIELD corpus.clean.BoundedCache.recentItems -> corpus.app.LruCache
 *                (declared Map): 1, 2, ... 8 entries after loops 1..8, then 8 forever; its
 *                table (16 slots) is never resized
 * Shark:         not reported with the default schedule: after loops 3, 5, 7, 9 the cache holds
 *                3, 5, 7, 8 entries, so the fourth dump gains 1 (< 2) and the growth stops
 */
package corpus.clean;

import corpus.app.Item;
import corpus.app.LruCache;
import java.util.Map;

public class BoundedCache implements Runnable {
    public static final int CAPACITY = 8;

    private static Map<String, Item> recentItems = new LruCache<>(CAPACITY);

    private int loop;

    @Override
    public void run() {
        loop++;
        String sku = "sku-" + loop;
        recentItems.put(sku, new Item(sku, 100L * loop));
        recentItems.get("sku-" + (loop - 1));
    }
}
