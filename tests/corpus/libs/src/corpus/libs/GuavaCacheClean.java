/*
 * GuavaCacheClean: the twin of GuavaCacheLeak with a bound, CacheBuilder.newBuilder()
 * .maximumSize(150).build(): a new key every loop; Guava evicts synchronously, inside put, but
 * per segment (4 segments of at most 38, 38, 37, 37 entries), so the cache stops growing only
 * when its fullest segment and then the others have filled.
 *
 * Expected:      CLEAN (not reported)
 * Library:       com.google.guava:guava 33.8.0-jre
 * Watched field: LocalCache$Segment.table -> AtomicReferenceArray -> Object[] of the 4 segments
 *                (through GuavaCacheClean.prices -> LocalCache$LocalManualCache -> LocalCache
 *                  -> segments); with a maximum size the entries are LocalCache$StrongAccessEntry,
 *                also linked through Segment.accessQueue (nextAccess / previousAccess) and
 *                Segment.writeQueue
 * Growth:        +1 entry per loop (5 objects) up to loop 126; the first eviction is at loop 127,
 *                then the size grows more slowly as segments fill, and stays at 150 from loop
 *                166 on. Deterministic (String hash codes; eviction runs inside put)
 * Measured:      size() after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7, 11, 19, 35,
 *                67, 128, 150, 150 (segments 38, 38, 37, 37 from loop 166); objects reachable
 *                from the scenario: 70, 82, 92, 113, 155, 232, 393, 698, 809, 808; both runs
 * heapgrowth:    at 2f1f225 (default schedule): not reported in 15 of 15 runs ("no growing
 *                objects after 11 loops in 5 snapshots"), but not because of the bound: the
 *                cache still grows by 1 per loop then. With --loops-per-snapshot 4 it is
 *                reported (a false positive): 19 (9 new) StrongAccessEntry under the tables
 *                after 39 loops, the other entries found through the access-queue chain
 */
package corpus.libs;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;

public class GuavaCacheClean implements Runnable {
    public static final int MAXIMUM_SIZE = 150;

    /** A price looked up for a SKU (the cached value). */
    record Price(String sku, long cents) {}

    private final Cache<String, Price> prices =
            CacheBuilder.newBuilder().maximumSize(MAXIMUM_SIZE).build();

    private int loop;

    @Override
    public void run() {
        loop++;
        String sku = "sku-" + loop;
        prices.put(sku, new Price(sku, 100L * loop));
        prices.getIfPresent("sku-" + (loop - 1));
    }
}
