/*
 * ThreadLeak: every loop starts a watcher thread, worker-<loop>, that waits for a shutdown signal
 * (a CountDownLatch) that is never given. The scenario keeps no reference to its threads: each
 * stays alive, parked in CountDownLatch.await, forever.
 *
 * Expected:      LEAK
 * Growing node:  live threads named worker-1, worker-2, ...: one more GcRoot(ThreadObject) per
 *                loop (daemon, 64 KiB stack), each holding its ThreadLeak$Watcher (target) and the
 *                latch. Two field paths grow with them (JDK 17):
 *                - the runner thread's ThreadGroup ("main" under the driver):
 *                  INSTANCE_FIELD ThreadGroup.threads -> Thread[] (4, 8, 16, ... slots) => Thread
 *                - the latch's wait queue: STATIC_FIELD corpus.leaks.ThreadLeak.shutdown
 *                  -> CountDownLatch -> CountDownLatch.sync -> CountDownLatch$Sync
 *                  -> AbstractQueuedSynchronizer.head/tail -> AbstractQueuedSynchronizer$Node
 *                  chain (next / prev) => Node.waiter -> Thread: one more node per waiting thread
 * Growth:        +1 thread per loop: 8 heap objects (Thread, its name String + byte[], its
 *                blockerLock Object, its inherited AccessControlContext + ProtectionDomain[],
 *                the Watcher, the latch's AbstractQueuedSynchronizer$SharedNode), and a 64 KiB
 *                native stack; every thread is WAITING when run() returns
 * Growing call:  corpus.leaks.ThreadLeak.run(ThreadLeak.java:71) (Thread.start; attributed there)
 * Settled:       run() returns only once the new thread is WAITING (parked in the latch); it
 *                yields while it waits, no clock
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7, 11, 19, 35, 67, 131,
 *                259, 515 live worker-* threads, all WAITING; ThreadGroup main: nthreads n + 2,
 *                threads[] 8, 8, 16, 16, 32, 64, 128, 256, 512, 1024 slots; latch wait queue n + 1
 *                nodes (with the dummy head); JVM live objects +8.00 per loop
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: reported
 *                but MIS-REPORTED, exit 1: the growing node is GcRoot(ThreadObject) itself (all
 *                thread roots as one node; the text report prints no node line), children
 *                Thread.name, Thread.blockerLock, Thread.inheritedAccessControlContext (30 objects,
 *                +6), LOCAL Thread. -> ThreadLeak$Watcher and -> AQS$SharedNode (23, +6); neither
 *                the worker-* threads nor the ThreadGroup or latch paths are named
 * Shark:         not run
 */
package corpus.leaks;

import corpus.app.Threads;
import java.util.concurrent.CountDownLatch;

public class ThreadLeak implements Runnable {
    public static final long STACK_SIZE = 64 * 1024;

    /** Waits for the shutdown signal. */
    static final class Watcher implements Runnable {
        private final CountDownLatch shutdown;

        Watcher(CountDownLatch shutdown) {
            this.shutdown = shutdown;
        }

        @Override
        public void run() {
            try {
                shutdown.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The shutdown signal. Bug: nobody ever counts it down. */
    private static CountDownLatch shutdown = new CountDownLatch(1);

    private int loop;

    @Override
    public void run() {
        loop++;
        Thread worker = new Thread(null, new Watcher(shutdown), "worker-" + loop, STACK_SIZE); // ALLOCATED
        worker.setDaemon(true);
        worker.start(); // GROWS
        Threads.awaitWaiting(worker);
    }
}
