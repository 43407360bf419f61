/*
 * CaffeineUnboundedLeak: a Caffeine cache built with no bound at all,
 * Caffeine.newBuilder().build(), gets a new key (a SKU) on every loop; nothing ever evicts, so
 * it keeps every price.
 *
 * Expected:      LEAK
 * Library:       com.github.ben-manes.caffeine:caffeine 3.3.1
 * Growing field: INSTANCE_FIELD com.github.benmanes.caffeine.cache.UnboundedLocalCache.data
 *                  -> java.util.concurrent.ConcurrentHashMap, reached through
 *                INSTANCE_FIELD corpus.libs.CaffeineUnboundedLeak.prices (declared Cache, final)
 *                  -> UnboundedLocalCache$UnboundedLocalManualCache, whose field cache
 *                  -> UnboundedLocalCache
 * Growth:        +1 entry per loop: a ConcurrentHashMap$Node, its key String "sku-N" + byte[],
 *                its value CaffeineUnboundedLeak$Price (whose sku is the key): 4 objects per
 *                loop. An unbounded Caffeine cache is a plain ConcurrentHashMap: no buffers,
 *                no maintenance, nothing runs on the executor, so it is deterministic
 * Growing call:  corpus.libs.CaffeineUnboundedLeak.run(CaffeineUnboundedLeak.java:43)
 *                  (into Cache.put -> UnboundedLocalCache.put -> ConcurrentHashMap.put)
 * Measured:      estimatedSize() after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7, 11,
 *                19, 35, 67, 131, 259, 515; objects reachable from the scenario: 21, 29, 37, 53,
 *                85, 149, 277, 533, 1045, 2069 (+4 per loop); identical in both driver runs
 * heapgrowth:    at 2f1f225 (default schedule, --no-attribution): reported in 13 of 13 runs,
 *                UnboundedLocalCache.data -> ConcurrentHashMap, children [key] String and
 *                [x] CaffeineUnboundedLeak$Price, 23 objects (6 new) after 23 loops
 */
package corpus.libs;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

public class CaffeineUnboundedLeak implements Runnable {
    /** A price looked up for a SKU (the cached value). */
    record Price(String sku, long cents) {}

    private final Cache<String, Price> prices = Caffeine.newBuilder().build();

    private int loop;

    @Override
    public void run() {
        loop++;
        String sku = "sku-" + loop;
        prices.put(sku, new Price(sku, 100L * loop)); // GROWS
        prices.getIfPresent("sku-" + (loop - 1));
    }
}
