/*
 * ConcurrentMapClean: clean twin of ConcurrentMapLeak. The same static ConcurrentMap of quotes,
 * but the previous loop's quote is removed once it is read, so the map holds one entry between
 * loops.
 *
 * Expected:      CLEAN
 * Growing node:  none: STATIC_FIELD ConcurrentMapClean.quotes -> ConcurrentHashMap, 1 entry
 *                between loops
 * Growth:        0 (1 entry from loop 1 on)
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 0 in 3 of 3, nothing reported, nothing leveled off (31 loops, 4
 *                snapshots)
 */
package corpus.attribution;

import corpus.app.Item;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

public class ConcurrentMapClean implements Runnable {
    private static ConcurrentMap<String, Item> quotes = new ConcurrentHashMap<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        String sku = "sku-" + loop;
        quotes.put(sku, new Item(sku, 100L * loop));
        quotes.remove("sku-" + (loop - 1));
    }
}
