/*
 * CompletableFutureLeak: every loop refreshes a quote asynchronously with
 * CompletableFuture.runAsync on the common ForkJoinPool; the task stores the quote in a static
 * map under a key made from the loop number (a new key every time), and nothing ever removes one.
 *
 * Expected:      LEAK
 * Growing field: STATIC_FIELD corpus.leaks.CompletableFutureLeak.quotes
 *                  -> java.util.concurrent.ConcurrentHashMap (declared Map, not final)
 *                  => ConcurrentHashMap$Node (key String, value corpus.app.Item)
 * Growth:        +1 entry per loop (6 objects: Node, key String + byte[], Item + sku String +
 *                byte[]); the table is replaced at 12, 24, 48, 96, 192, 384 entries
 * Growing call:  corpus.leaks.CompletableFutureLeak.refresh(CompletableFutureLeak.java:46),
 *                on a common-pool worker (ForkJoinPool.commonPool-worker-N, a JDK daemon thread:
 *                its stack size cannot be set), below CompletableFuture$AsyncRun.run; the scenario
 *                submits it at CompletableFutureLeak.java:53
 * Executor:      the common pool is passed explicitly. CompletableFuture.runAsync(Runnable) uses
 *                it only if its parallelism is above 1 (3 or more CPUs); on a 1- or 2-CPU machine
 *                (parallelism 1) it starts a new Thread per task instead (ThreadPerTaskExecutor)
 * Settled:       NOT by run(), on purpose: run() does not wait for the task. Before a dump a tool
 *                must wait (ForkJoinPool.commonPool().awaitQuiescence); a dump taken at once may
 *                miss the last loop's entry
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515 (each after awaitQuiescence):
 *                3, 5, 7, 11, 19, 35, 67, 131, 259, 515 entries; table 16, 16, 16, 16, 32, 64, 128,
 *                256, 512, 1024 slots; JVM live objects +6.0 per loop
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: reported,
 *                exit 1, in 31 of 32 runs: STATIC_FIELD CompletableFutureLeak.quotes ->
 *                ConcurrentHashMap, children [key] String and [x] Item 6, 10, 14, 18, 22, 34, 46;
 *                once (the very first run) not reported, "no growing objects after 11
 *                loops in 5 snapshots", exit 0: TIMING-SENSITIVE
 * Shark:         not run
 */
package corpus.leaks;

import corpus.app.Item;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;

public class CompletableFutureLeak implements Runnable {
    private static Map<String, Item> quotes = new ConcurrentHashMap<>();

    private int loop;

    static void refresh(int request) {
        quotes.put("quote-" + request, new Item("sku-" + request, 99L * request)); // GROWS
    }

    @Override
    public void run() {
        loop++;
        int request = loop;
        CompletableFuture.runAsync(() -> refresh(request), ForkJoinPool.commonPool()); // VIA (async)
    }
}
