/*
 * CaffeineLoaderLambdaBounded: clean twin of CaffeineLoaderLambdaLeak. The same loading lambda,
 * cache.get(sku, k -> load(k)), a new SKU on every loop, but the cache is bounded,
 * maximumSize(8): Caffeine evicts the least used entries in its maintenance, which it runs on
 * ForkJoinPool.commonPool() after writes, so the number of entries between loops depends on
 * when that thread ran (the ten-run check, scripts/attribution-stability.sh).
 *
 * Expected:      CLEAN
 * Library:       com.github.ben-manes.caffeine:caffeine 3.3.1
 * Growing node:  none: UnboundedLocalCache is replaced by a BoundedLocalCache whose data
 *                ConcurrentHashMap holds about 8 entries between loops
 * Growth:        0 net
 * Measured:      heapgrowth on branch order (debug build), default schedule, JSON, 3 runs: exit
 *                0 in 3 of 3, nothing reported; the search looked longer in each (63, 124 and
 *                188 loops: when the common pool ran the maintenance varies), and in 2 of 3
 *                listed the bounded cache (BoundedLocalManualCache.cache) as leveled off
 */
package corpus.libs;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

public class CaffeineLoaderLambdaBounded implements Runnable {
    /** A price looked up for a SKU (the cached value). */
    record Price(String sku, long cents) {}

    private final Cache<String, Price> prices = Caffeine.newBuilder().maximumSize(8).build();

    private int loop;

    private Price load(String sku) {
        return new Price(sku, 100L * loop);
    }

    @Override
    public void run() {
        loop++;
        String sku = "sku-" + loop;
        prices.get(sku, k -> load(k));
    }
}
