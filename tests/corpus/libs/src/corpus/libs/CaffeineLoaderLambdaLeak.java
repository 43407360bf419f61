/*
 * CaffeineLoaderLambdaLeak: prices are looked up through an unbounded Caffeine cache with a
 * loading lambda, cache.get(sku, k -> load(k)), a new SKU on every loop; nothing evicts. The
 * value is made inside the lambda, which the cache calls back from ConcurrentHashMap.compute:
 * the attribution's stacks pass through the lambda and the library (issue 32: a baseline
 * repeated the lambda's method once per stack that differed only in a library line).
 *
 * Expected:      LEAK
 * Library:       com.github.ben-manes.caffeine:caffeine 3.3.1
 * Growing field: INSTANCE_FIELD com.github.benmanes.caffeine.cache.UnboundedLocalCache.data
 *                  -> java.util.concurrent.ConcurrentHashMap, reached through
 *                INSTANCE_FIELD corpus.libs.CaffeineLoaderLambdaLeak.prices (declared Cache,
 *                final) -> UnboundedLocalCache$UnboundedLocalManualCache
 * Growth:        +1 entry per loop: a ConcurrentHashMap$Node, its key String "sku-N" + byte[],
 *                its value CaffeineLoaderLambdaLeak$Price; nothing runs on the executor (an
 *                unbounded cache has no maintenance)
 * Growing call:  corpus.libs.CaffeineLoaderLambdaLeak.run(CaffeineLoaderLambdaLeak.java:50)
 * Measured:      heapgrowth on branch order (debug build), default schedule, JSON, 3 runs: exit 1
 *                in 3 of 3; node UnboundedLocalCache.data -> ConcurrentHashMap, children at
 *                loops 3, 7, 15, 31, 124, 496, 1000: 6, 14, 30, 62, 248, 992, 2000 ([key]
 *                String, [x] Price). Attribution (all 3): allocated at, 2 stacks of 4 objects:
 *                CaffeineLoaderLambdaLeak.java:43 (the Price, in load(), which the lambda calls:
 *                the ALLOCATED line) and :49 (the key String); the lambda's own frame is never
 *                the place to look (the cache calls it back). With kept by (issue 32, main at
 *                201d73b, debug build, 4 runs): `4 call(s) to get()` at :50 (the GROWS line, the
 *                call whose ConcurrentHashMap$Node links the entry), made at :49 (the key), in
 *                4 of 4
 */
package corpus.libs;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

public class CaffeineLoaderLambdaLeak implements Runnable {
    /** A price looked up for a SKU (the cached value). */
    record Price(String sku, long cents) {}

    private final Cache<String, Price> prices = Caffeine.newBuilder().build();

    private int loop;

    private Price load(String sku) {
        return new Price(sku, 100L * loop); // ALLOCATED
    }

    @Override
    public void run() {
        loop++;
        String sku = "sku-" + loop;
        prices.get(sku, k -> load(k)); // GROWS
    }
}
