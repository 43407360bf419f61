/*
 * ThreadJoined: the clean twin of leaks.ThreadLeak. Every loop still starts a watcher thread,
 * worker-<loop>, waiting on a shutdown latch, but the latch is made for this loop and counted down
 * once the thread is waiting, and the thread is joined: it has ended when run() returns.
 *
 * Expected:      CLEAN (not reported)
 * Watched:       no live thread named worker-*, and the runner's ThreadGroup back to its
 *                threads count from before the loop, whenever run() has returned
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 0 worker-* threads;
 *                ThreadGroup main nthreads 2, threads[] 4 slots; JVM live objects +0 per loop after
 *                loop 7
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: not
 *                reported (7 loops, 3 snapshots), exit 0
 * Shark:         not reported
 */
package corpus.clean;

import corpus.app.Threads;
import java.util.concurrent.CountDownLatch;

public class ThreadJoined implements Runnable {
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

    private int loop;

    @Override
    public void run() {
        loop++;
        CountDownLatch shutdown = new CountDownLatch(1);
        Thread worker = new Thread(null, new Watcher(shutdown), "worker-" + loop, STACK_SIZE);
        worker.setDaemon(true);
        worker.start();
        Threads.awaitWaiting(worker);
        shutdown.countDown();
        Threads.join(worker);
    }
}
