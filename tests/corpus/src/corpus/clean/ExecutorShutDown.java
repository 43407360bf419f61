/*
 * ExecutorShutDown: the clean twin of leaks.ExecutorLeak. Every loop still makes a one-thread pool
 * and runs one job on it, then shuts the pool down, awaits its termination and joins its worker
 * thread (awaitTermination returns once the pool is TERMINATED, a moment before the worker thread
 * itself has ended).
 *
 * Expected:      CLEAN (not reported)
 * Watched:       no live thread named pool-*, no ThreadPoolExecutor alive, whenever run() has
 *                returned
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 0 pool-* threads, 0
 *                ThreadPoolExecutors; JVM live objects +0 per loop after loop 7 (within 0.1)
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: not
 *                reported (7 loops, 3 snapshots), exit 0
 * Shark:         not reported
 */
package corpus.clean;

import corpus.app.PoolThreadFactory;
import corpus.app.Threads;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

public class ExecutorShutDown implements Runnable {
    /** Prices one order; returns the thread it ran on, so that the caller can wait for it. */
    static final class PriceJob implements Callable<Thread> {
        private final int order;
        long cents;

        PriceJob(int order) {
            this.order = order;
        }

        @Override
        public Thread call() {
            cents = 100L * order;
            return Thread.currentThread();
        }
    }

    private int loop;

    @Override
    public void run() {
        loop++;
        ExecutorService pool = Executors.newFixedThreadPool(1, new PoolThreadFactory());
        Future<Thread> result = pool.submit(new PriceJob(loop));
        Thread worker = await(result);
        pool.shutdown();
        try {
            if (!pool.awaitTermination(1, TimeUnit.MINUTES)) {
                throw new IllegalStateException("pool did not terminate");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        Threads.join(worker);
    }

    private static Thread await(Future<Thread> result) {
        try {
            return result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("job failed", e.getCause());
        }
    }
}
