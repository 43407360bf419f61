/*
 * CaffeineAsyncCacheInvalidated: clean twin of CaffeineAsyncCacheLeak. The same unbounded
 * AsyncCache of quotes; the previous loop's quote is invalidated once read, so the cache holds
 * one entry between loops.
 *
 * Expected:      CLEAN
 * Library:       com.github.ben-manes.caffeine:caffeine 3.3.1
 * Growing node:  none: UnboundedLocalCache.data holds 1 entry between loops
 * Growth:        0 (1 entry from loop 1 on)
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 0 in 3 of 3, nothing reported, nothing leveled off (31 loops, 4
 *                snapshots)
 */
package corpus.libs;

import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.concurrent.CompletableFuture;

public class CaffeineAsyncCacheInvalidated implements Runnable {
    /** A quote for a SKU (the cached value). */
    record Quote(String sku, long cents) {}

    private final AsyncCache<String, Quote> quotes = Caffeine.newBuilder().buildAsync();

    private int loop;

    @Override
    public void run() {
        loop++;
        String sku = "sku-" + loop;
        CompletableFuture<Quote> quote = CompletableFuture.completedFuture(new Quote(sku, 100L * loop));
        quotes.put(sku, quote);
        String previous = "sku-" + (loop - 1);
        quotes.getIfPresent(previous);
        quotes.synchronous().invalidate(previous);
    }
}
