/*
 * CompletableFutureBounded: the clean twin of leaks.CompletableFutureLeak. The same asynchronous
 * refresh on the common ForkJoinPool, but keyed by symbol (8 symbols: request % 8), so each task
 * replaces one of 8 quotes.
 *
 * Expected:      CLEAN (not reported)
 * Watched field: STATIC_FIELD corpus.clean.CompletableFutureBounded.quotes
 *                  -> java.util.concurrent.ConcurrentHashMap (declared Map): 1, 2, ... 8 entries
 *                after loops 1..8 (once their tasks have run), then 8 forever (each put replaces a
 *                value; the old Item is garbage); its table (16 slots) is never replaced
 * Bound reached: loop 8
 * Settled:       NOT by run(), on purpose (see CompletableFutureLeak)
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515 (each after awaitQuiescence):
 *                3, 5, 7, 8, 8, 8, 8, 8, 8, 8 entries; table 16 slots; checked after every loop: 8
 *                first after loop 8
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: not
 *                reported, exit 0 (12 runs): 11 times after 23 loops in 7 snapshots with
 *                leveled_off INSTANCE_FIELD Item.sku -> String, once after 9 loops in 4 snapshots
 *                (timing)
 * Shark:         not reported
 */
package corpus.clean;

import corpus.app.Item;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;

public class CompletableFutureBounded implements Runnable {
    public static final int SYMBOLS = 8;

    private static Map<String, Item> quotes = new ConcurrentHashMap<>();

    private int loop;

    static void refresh(int request) {
        quotes.put("quote-" + (request % SYMBOLS), new Item("sku-" + request, 99L * request));
    }

    @Override
    public void run() {
        loop++;
        int request = loop;
        CompletableFuture.runAsync(() -> refresh(request), ForkJoinPool.commonPool());
    }
}
