/*
 * SlowlyFillingCache: an LRU cache of capacity 12 that gets one new key per loop. It grows for
 * the first 12 loops, then levels off (each new key evicts the eldest). This is the kind of
 * cache that made all of BLeak's false positives.
 *
 * Expected:      CLEAN (not reported), but only if the tool checks for a plateau
 * Watched field: INSTANCE_FIELD corpus.clean.SlowlyFillingCache.quotes -> corpus.app.LruCache
 *                (declared Map): +1 entry per loop for loops 1..12 (6 objects per loop:
 *                LinkedHashMap$Entry, key String + byte[], Item + sku String + byte[]), then
 *                12 entries forever; its table (32 slots) is never resized
 * Shark:         FALSE POSITIVE: with the default schedule (warm-up 3, dumps after loops 3, 5,
 *                7, 9, 11) the cache holds 3, 5, 7, 9, 11 entries, +2 in every dump, so shark
 *                reports it. Running as many loops again (to about loop 22) shows 12, 12, ...
 */
package corpus.clean;

import corpus.app.Item;
import corpus.app.LruCache;
import java.util.Map;

public class SlowlyFillingCache implements Runnable {
    public static final int CAPACITY = 12;

    private final Map<String, Item> quotes = new LruCache<>(CAPACITY);

    private int loop;

    @Override
    public void run() {
        loop++;
        String key = "quote-" + loop;
        quotes.put(key, new Item("sku-" + loop, 99L * loop));
    }
}
