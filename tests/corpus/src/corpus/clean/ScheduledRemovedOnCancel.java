/*
 * ScheduledRemovedOnCancel: the clean twin of leaks.ScheduledCancelledLeak, fixed the way the
 * JDK offers: the ScheduledThreadPoolExecutor has setRemoveOnCancelPolicy(true), so cancel()
 * takes the task out of the work queue at once, in the calling thread. Every loop still
 * schedules a session's expiry an hour ahead and cancels it when the session ends (within the
 * loop). A housekeeping task every 100 ms keeps the pool's worker waking on its own period, as
 * in a real service (TIMED_WAITING between runs).
 *
 * Expected:      CLEAN (not reported)
 * Watched field: INSTANCE_FIELD corpus.clean.ScheduledRemovedOnCancel.scheduler
 *                  -> ScheduledThreadPoolExecutor -> workQueue
 *                  -> ScheduledThreadPoolExecutor$DelayedWorkQueue: 1 task between loops (the
 *                housekeeping task)
 * Growth:        0: the loop's task leaves the queue in cancel()
 * Drained by:    nothing needed; the worker thread "pool-N-thread-1" (daemon) wakes every 100 ms
 *                for the housekeeping task
 * Measured:      see docs/bench.md, "Issue 35" (10 runs under load, heapgrowth at main c613325)
 */
package corpus.clean;

import corpus.app.Item;
import corpus.app.PoolThreadFactory;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

public class ScheduledRemovedOnCancel implements Runnable {
    public static final long HOUSEKEEPING_MS = 100;
    public static final long EXPIRY_HOURS = 1;

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
    private volatile long housekeepingRuns;

    public ScheduledRemovedOnCancel() {
        scheduler.setRemoveOnCancelPolicy(true);
        scheduler.scheduleAtFixedRate(() -> housekeepingRuns++, HOUSEKEEPING_MS, HOUSEKEEPING_MS,
                TimeUnit.MILLISECONDS);
    }

    @Override
    public void run() {
        loop++;
        ScheduledFuture<?> expiry =
                scheduler.schedule(new Expiry(new Item("session-" + loop, loop)), EXPIRY_HOURS, TimeUnit.HOURS);
        // The session ends here.
        expiry.cancel(false);
    }
}
