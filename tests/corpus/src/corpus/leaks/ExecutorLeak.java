/*
 * ExecutorLeak: every loop makes a one-thread pool (Executors.newFixedThreadPool), runs one job on
 * it, waits for the result and drops the pool without shutdown(). The pool's worker thread stays
 * parked in LinkedBlockingQueue.take() forever, and keeps its ThreadPoolExecutor alive.
 *
 * Expected:      LEAK
 * Growing node:  live threads named pool-<loop>-thread-1 (corpus.app.PoolThreadFactory names them
 *                like Executors.defaultThreadFactory(), but makes them daemon with a 64 KiB stack;
 *                the default factory's threads are not daemon and would keep the JVM alive): one
 *                more GcRoot(ThreadObject) per loop -> INSTANCE_FIELD Thread.target
 *                -> ThreadPoolExecutor$Worker -> this$0 -> ThreadPoolExecutor (workers HashSet,
 *                workQueue LinkedBlockingQueue, mainLock, ...). No field of the scenario grows;
 *                the runner's ThreadGroup.threads -> Thread[] does (JDK 17)
 * Growth:        +1 thread and +1 ThreadPoolExecutor per loop: 28 heap objects (the executor,
 *                its LinkedBlockingQueue + head Node, 3 ReentrantLocks + syncs + conditions, 3
 *                AtomicIntegers, its workers HashSet + HashMap + table + Node, the Worker, its
 *                PoolThreadFactory, the Thread with its name, blockerLock and access control
 *                context, the condition's wait node); every worker is WAITING when run() returns
 * Growing call:  corpus.leaks.ExecutorLeak.run(ExecutorLeak.java:69) (the first submit starts
 *                the pool's thread; the pool itself is made on the line before)
 * JDK 21+:       a second growing node: every ThreadPoolExecutor registers its thread container
 *                in STATIC_FIELD jdk.internal.vm.ThreadContainers.CONTAINER_REGISTRY (weak
 *                references, taken out at shutdown), +1 a loop, made at ExecutorLeak.java:68
 * Settled:       run() waits for the job's result, then yields until the worker is WAITING (its
 *                next wait is LinkedBlockingQueue.take), no clock
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7, 11, 19, 35, 67, 131,
 *                259, 515 live pool-*-thread-1 threads (all WAITING) and as many
 *                ThreadPoolExecutors; JVM live objects +28.0 per loop
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: reported
 *                but MIS-REPORTED, exit 1: the growing node is GcRoot(ThreadObject) itself (no node
 *                line printed), children Thread.name/blockerLock/inheritedAccessControlContext (30,
 *                +6) and LOCAL Thread. -> ThreadPoolExecutor, LinkedBlockingQueue,
 *                ThreadPoolExecutor$Worker, ReentrantLock, ... (23, +6)
 * Shark:         not run
 */
package corpus.leaks;

import corpus.app.PoolThreadFactory;
import corpus.app.Threads;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

public class ExecutorLeak implements Runnable {
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
        Future<Thread> result = pool.submit(new PriceJob(loop)); // GROWS
        Thread worker = await(result);
        Threads.awaitWaiting(worker);
        // Bug: pool.shutdown() is never called.
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
