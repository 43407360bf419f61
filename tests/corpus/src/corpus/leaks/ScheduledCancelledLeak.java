/*
 * ScheduledCancelledLeak: a ScheduledThreadPoolExecutor without setRemoveOnCancelPolicy(true).
 * Every loop schedules a session's expiry an hour ahead and cancels it when the session ends
 * (within the loop); but a cancelled task stays in the work queue until it is due, an hour
 * later, with its Runnable and everything that holds (the classic leak of a scheduler with
 * long delays: clean.ScheduledRemovedOnCancel is the fix, clean.ScheduledCancelledDueSoon the
 * same code with a short delay). A housekeeping task every 100 ms keeps the worker waking on
 * its own period (TIMED_WAITING between runs), as in ScheduledRemovedOnCancel.
 *
 * Expected:      LEAK
 * Growing node:  INSTANCE_FIELD ScheduledThreadPoolExecutor$DelayedWorkQueue.queue
 *                  -> java.util.concurrent.RunnableScheduledFuture[] (a binary heap, 16 slots,
 *                grown by half when full) => ScheduledThreadPoolExecutor$ScheduledFutureTask,
 *                reached through ScheduledCancelledLeak.scheduler -> workQueue, and from the
 *                worker thread
 * Growth:        +1 cancelled ScheduledFutureTask per loop (with its Executors$RunnableAdapter,
 *                ScheduledCancelledLeak$Expiry, Item, sku String + byte[])
 * Growing call:  corpus.leaks.ScheduledCancelledLeak.run(ScheduledCancelledLeak.java:58)
 *                  (ScheduledThreadPoolExecutor.schedule -> DelayedWorkQueue.add)
 * Drained by:    nothing within a run: each task is due an hour later
 * Measured:      see docs/bench.md, "Issue 35" (10 runs under load, heapgrowth at main c613325)
 */
package corpus.leaks;

import corpus.app.Item;
import corpus.app.PoolThreadFactory;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

public class ScheduledCancelledLeak implements Runnable {
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

    public ScheduledCancelledLeak() {
        scheduler.scheduleAtFixedRate(() -> housekeepingRuns++, HOUSEKEEPING_MS, HOUSEKEEPING_MS,
                TimeUnit.MILLISECONDS);
    }

    @Override
    public void run() {
        loop++;
        Expiry expiry = new Expiry(new Item("session-" + loop, loop)); // ALLOCATED
        ScheduledFuture<?> pending = scheduler.schedule(expiry, EXPIRY_HOURS, TimeUnit.HOURS); // GROWS
        // Bug: without the remove-on-cancel policy, this leaves the task queued for an hour.
        pending.cancel(false);
    }
}
