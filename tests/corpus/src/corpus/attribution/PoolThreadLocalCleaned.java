/*
 * PoolThreadLocalCleaned: clean twin of PoolThreadLocalLeak. The same single-thread executor and
 * ThreadLocal<List<Item>>, but the task removes its thread-local value in finally, so the pool
 * thread's ThreadLocalMap has no entry for SEEN between loops.
 *
 * Expected:      CLEAN
 * Growing node:  none: the pool thread's ThreadLocalMap holds no value for SEEN between loops
 * Growth:        0
 * Settled:       as PoolThreadLocalLeak: Future.get(), then the worker WAITING again
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 0 in 3 of 3, nothing reported, nothing leveled off (31 loops, 4
 *                snapshots)
 */
package corpus.attribution;

import corpus.app.Item;
import corpus.app.PoolThreadFactory;
import corpus.app.Threads;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

public class PoolThreadLocalCleaned implements Runnable {
    private static final ThreadLocal<List<Item>> SEEN = ThreadLocal.withInitial(ArrayList::new);

    private final ExecutorService pool = Executors.newSingleThreadExecutor(new PoolThreadFactory());
    private volatile Thread worker;

    private int loop;

    @Override
    public void run() {
        loop++;
        int order = loop;
        Future<?> done = pool.submit(() -> remember(order));
        try {
            done.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("task failed", e.getCause());
        }
        Threads.awaitWaiting(worker);
    }

    private void remember(int order) {
        worker = Thread.currentThread();
        try {
            List<Item> seen = SEEN.get();
            seen.add(new Item("order-" + order, 100L * order));
        } finally {
            SEEN.remove();
        }
    }
}
