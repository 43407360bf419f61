/*
 * GuavaCacheLeak: a Guava cache built with no bound, CacheBuilder.newBuilder().build(), gets a
 * new key every loop; nothing evicts.
 *
 * Expected:      LEAK
 * Library:       com.google.guava:guava 33.8.0-jre
 * Growing field: the entry tables of the cache's 4 segments: INSTANCE_FIELD
 *                com.google.common.cache.LocalCache$Segment.table -> AtomicReferenceArray, its
 *                array -> Object[] (replaced when a segment's table expands), reached through
 *                corpus.libs.GuavaCacheLeak.prices (declared Cache) -> LocalCache$LocalManualCache
 *                  -> localCache -> LocalCache -> segments -> LocalCache$Segment[4]
 * Growth:        +1 entry per loop, 5 objects: LocalCache$StrongEntry (key String "sku-N" +
 *                byte[]; entries in the same bucket are chained by StrongEntry.next),
 *                LocalCache$StrongValueReference, GuavaCacheLeak$Price; the segments share the
 *                growth unevenly (121, 136, 126, 132 entries after loop 515)
 * Growing call:  corpus.libs.GuavaCacheLeak.run(GuavaCacheLeak.java:42)
 *                  (into Cache.put -> LocalCache.put -> LocalCache$Segment.put)
 * Measured:      size() after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7, 11, 19, 35,
 *                67, 131, 259, 515; objects reachable from the scenario: 51, 61, 71, 91, 131,
 *                211, 371, 691, 1331, 2611 (+5 per loop); identical in both driver runs
 * heapgrowth:    at 2f1f225 (default schedule): reported in 3 of 3 runs, the node
 *                AtomicReferenceArray.array -> Object[] (4 objects), children 19 (3 new)
 *                LocalCache$StrongEntry after 23 loops (the other 4 sit in bucket chains)
 */
package corpus.libs;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;

public class GuavaCacheLeak implements Runnable {
    /** A price looked up for a SKU (the cached value). */
    record Price(String sku, long cents) {}

    private final Cache<String, Price> prices = CacheBuilder.newBuilder().build();

    private int loop;

    @Override
    public void run() {
        loop++;
        String sku = "sku-" + loop;
        prices.put(sku, new Price(sku, 100L * loop)); // GROWS
        prices.getIfPresent("sku-" + (loop - 1));
    }
}
