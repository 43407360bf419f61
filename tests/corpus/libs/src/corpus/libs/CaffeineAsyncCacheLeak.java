/*
 * CaffeineAsyncCacheLeak: an unbounded Caffeine AsyncCache, Caffeine.newBuilder().buildAsync(),
 * gets a completed future of a new key's quote every loop; nothing evicts. The values are
 * CompletableFutures, and an unbounded cache is a ConcurrentHashMap inside (Unsafe CAS, no field
 * write to watch); the user's field is declared AsyncCache (not a Collection or Map).
 *
 * Expected:      LEAK
 * Library:       com.github.ben-manes.caffeine:caffeine 3.3.1
 * Growing node:  INSTANCE_FIELD com.github.benmanes.caffeine.cache.UnboundedLocalCache.data
 *                  -> java.util.concurrent.ConcurrentHashMap => java.util.concurrent.CompletableFuture
 *                  -> result -> CaffeineAsyncCacheLeak$Quote, reached through
 *                INSTANCE_FIELD corpus.libs.CaffeineAsyncCacheLeak.quotes (declared AsyncCache,
 *                final) -> UnboundedLocalCache$UnboundedLocalAsyncCache -> cache
 *                  -> UnboundedLocalCache
 * Growth:        +1 entry per loop (5 objects: ConcurrentHashMap$Node, CompletableFuture, Quote,
 *                the key String + byte[], shared by the Quote)
 * Growing call:  corpus.libs.CaffeineAsyncCacheLeak.run(CaffeineAsyncCacheLeak.java:49)
 *                  (into AsyncCache.put -> LocalAsyncCache.put -> UnboundedLocalCache.put
 *                  -> ConcurrentHashMap.put)
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 1 in 3 of 3; node INSTANCE_FIELD UnboundedLocalCache.data ->
 *                ConcurrentHashMap, children at loops 3, 7, 15, 31, 124, 496, 1000: 6, 14, 30, 62,
 *                248, 992, 2000 ([key] String, [x] CompletableFuture). Attribution (all 3):
 *                attributed, allocated at, 2 stacks (4 objects each): StringConcatHelper.newString
 *                < ... < CaffeineAsyncCacheLeak.run(CaffeineAsyncCacheLeak.java:47) (the key) and
 *                CompletableFuture.completedFuture <
 *                CaffeineAsyncCacheLeak.run(CaffeineAsyncCacheLeak.java:48) (the future; since
 *                issue 32 first, one method's later line); the put (GROWS) is in no frame
 */
package corpus.libs;

import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.concurrent.CompletableFuture;

public class CaffeineAsyncCacheLeak implements Runnable {
    /** A quote for a SKU (the cached value). */
    record Quote(String sku, long cents) {}

    private final AsyncCache<String, Quote> quotes = Caffeine.newBuilder().buildAsync();

    private int loop;

    @Override
    public void run() {
        loop++;
        String sku = "sku-" + loop; // ALLOCATED
        CompletableFuture<Quote> quote = CompletableFuture.completedFuture(new Quote(sku, 100L * loop)); // ALLOCATED
        quotes.put(sku, quote); // GROWS
        quotes.getIfPresent("sku-" + (loop - 1));
    }
}
