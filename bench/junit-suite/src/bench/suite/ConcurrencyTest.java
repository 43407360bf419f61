package bench.suite;

import dev.heapgrowth.junit.HeapGrowthTest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/** Clean: work handed to other threads and finished before the loop ends. */
class ConcurrencyTest {
    private static final ExecutorService POOL = Executors.newFixedThreadPool(2);
    private final ConcurrentHashMap<String, Integer> counters = new ConcurrentHashMap<>();
    private final AtomicInteger sequence = new AtomicInteger();

    @HeapGrowthTest
    void submitsToAPool() throws ExecutionException, InterruptedException {
        long started = System.nanoTime();
        Future<Integer> answer = POOL.submit(() -> 6 * 7);
        if (answer.get() != 42) {
            throw new AssertionError();
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void joinsACompletableFuture() {
        long started = System.nanoTime();
        int value = CompletableFuture.supplyAsync(() -> 20).thenApply(x -> x + 1).join();
        if (value != 21) {
            throw new AssertionError(value);
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void countsInAConcurrentMap() {
        long started = System.nanoTime();
        counters.merge("requests", 1, Integer::sum);
        counters.merge("errors", 0, Integer::sum);
        Loops.done(started);
    }

    @HeapGrowthTest
    void incrementsAnAtomic() {
        long started = System.nanoTime();
        for (int i = 0; i < 100; i++) {
            sequence.incrementAndGet();
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void startsAndJoinsAThread() throws InterruptedException {
        long started = System.nanoTime();
        int[] result = new int[1];
        Thread worker = new Thread(() -> result[0] = 1, "bench-worker");
        worker.start();
        worker.join();
        if (result[0] != 1) {
            throw new AssertionError();
        }
        Loops.done(started);
    }
}
