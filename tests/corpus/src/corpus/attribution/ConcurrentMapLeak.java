/*
 * ConcurrentMapLeak: a static ConcurrentHashMap of quotes by SKU, declared as ConcurrentMap (not
 * final, so a recording proxy must implement ConcurrentMap to go in), gets a new key every loop
 * and is never pruned. ConcurrentHashMap counts and links its nodes with Unsafe CAS: no field
 * write that a JVMTI watch would see.
 *
 * Expected:      LEAK
 * Growing node:  STATIC_FIELD corpus.attribution.ConcurrentMapLeak.quotes
 *                  -> java.util.concurrent.ConcurrentHashMap => corpus.app.Item (key: the sku
 *                  String)
 * Growth:        +1 entry per loop (4 objects: ConcurrentHashMap$Node, Item, the sku String +
 *                byte[], the same String as key and as Item.sku); the table is replaced when it
 *                resizes
 * Growing call:  corpus.attribution.ConcurrentMapLeak.run(ConcurrentMapLeak.java:38)
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 1 in 3 of 3; node STATIC_FIELD ConcurrentMapLeak.quotes ->
 *                ConcurrentHashMap, children at loops 3, 7, 15, 31, 124, 496, 1000: 6, 14, 30, 62,
 *                248, 992, 2000 ([key] String, [x] Item). Attribution (all 3): attributed, calls to
 *                put() (by docs/attribution.md's order the proxy; the JSON does not name the
 *                recorder), 1 stack (4 calls): ConcurrentMapLeak.run(ConcurrentMapLeak.java:38) =
 *                the GROWS line
 */
package corpus.attribution;

import corpus.app.Item;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

public class ConcurrentMapLeak implements Runnable {
    private static ConcurrentMap<String, Item> quotes = new ConcurrentHashMap<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        String sku = "sku-" + loop;
        quotes.put(sku, new Item(sku, 100L * loop)); // GROWS
        quotes.get("sku-" + (loop - 1));
    }
}
