/*
 * ScheduledCancelledDueSoon: the other clean twin of leaks.ScheduledCancelledLeak: the same
 * ScheduledThreadPoolExecutor without setRemoveOnCancelPolicy, but the session's expiry is due
 * 100 ms ahead, not an hour. A cancelled task stays in the work queue until it is due; then the
 * pool's worker thread takes it out (and does not run it). So the queue holds the tasks cancelled
 * in the last 100 ms, and the worker, asleep until the head is due (TIMED_WAITING), drains them
 * on its own time: a snapshot right after a burst of loops finds the whole burst.
 *
 * Expected:      CLEAN (not reported)
 * Watched field: INSTANCE_FIELD corpus.clean.ScheduledCancelledDueSoon.scheduler
 *                  -> ScheduledThreadPoolExecutor -> workQueue
 *                  -> ScheduledThreadPoolExecutor$DelayedWorkQueue.queue
 *                  -> RunnableScheduledFuture[] => ScheduledThreadPoolExecutor$ScheduledFutureTask
 *                (each holding a ScheduledCancelledDueSoon$Expiry and its Item until it is due:
 *                a cancelled FutureTask keeps its callable)
 * Growth:        0 net: the tasks cancelled in the last 100 ms
 * Drained by:    the worker thread "pool-N-thread-1" (daemon), when each task is due
 * Measured:      see docs/bench.md, "Issue 35" (10 runs under load, heapgrowth at main c613325)
 */
package corpus.clean;

import corpus.app.Item;
import corpus.app.PoolThreadFactory;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

public class ScheduledCancelledDueSoon implements Runnable {
    public static final long EXPIRY_MS = 100;

    /** Expires a session. */
    record Expiry(Item session) implements Runnable {
        @Override
        public void run() {
            session.sku();
        }
    }

    private final ScheduledThreadPoolExecutor scheduler =
            new ScheduledThreadPoolExecutor(1, new PoolThreadFactory());

    private int loop;

    public ScheduledCancelledDueSoon() {
        scheduler.prestartCoreThread();
    }

    @Override
    public void run() {
        loop++;
        ScheduledFuture<?> expiry = scheduler.schedule(new Expiry(new Item("session-" + loop, loop)),
                EXPIRY_MS, TimeUnit.MILLISECONDS);
        // The session ends here.
        expiry.cancel(false);
    }
}
