/*
 * TimerTaskPurged: the clean twin of leaks.TimerTaskLeak. Every loop still schedules a session's
 * expiry reminder an hour ahead on the static Timer, but when the session ends (within the loop)
 * the reminder is cancelled and the timer purged, which takes cancelled tasks out of its queue.
 *
 * Expected:      CLEAN (not reported)
 * Watched node:  STATIC_FIELD corpus.clean.TimerTaskPurged.timer -> java.util.Timer
 *                  -> INSTANCE_FIELD Timer.queue -> java.util.TaskQueue: 1 task between loops
 *                (the Housekeeping task, the head), its TimerTask[128] never replaced
 * Settled:       as in TimerTaskLeak: the timer thread is TIMED_WAITING on the housekeeping task
 *                from the constructor on; neither schedule() of a later task nor purge() wakes it
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 1 task (Housekeeping),
 *                TimerTask[] 128 slots, timer thread TIMED_WAITING; JVM live objects +0 per loop
 *                after loop 7
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: not
 *                reported (9 loops, 4 snapshots), exit 0
 * Shark:         not reported
 */
package corpus.clean;

import corpus.app.Item;
import corpus.app.Threads;
import java.util.Timer;
import java.util.TimerTask;

public class TimerTaskPurged implements Runnable {
    public static final long HALF_AN_HOUR_MS = 30 * 60 * 1000L;
    public static final long ONE_HOUR_MS = 60 * 60 * 1000L;

    /** Expires a session. */
    static final class Expiry extends TimerTask {
        private final Item session;

        Expiry(Item session) {
            this.session = session;
        }

        @Override
        public void run() {
            session.sku();
        }
    }

    /** Periodic cleanup; scheduled first, so it stays the head of the queue. */
    static final class Housekeeping extends TimerTask {
        @Override
        public void run() {
        }
    }

    private static Timer timer = new Timer("corpus-timer", true);

    private int loop;
    private int purged;

    public TimerTaskPurged() {
        Thread timerThread = Threads.threadOf(timer);
        timer.schedule(new Housekeeping(), HALF_AN_HOUR_MS);
        Threads.awaitState(timerThread, Thread.State.TIMED_WAITING);
    }

    @Override
    public void run() {
        loop++;
        TimerTask expiry = new Expiry(new Item("session-" + loop, loop));
        timer.schedule(expiry, ONE_HOUR_MS);
        // The session ends here.
        expiry.cancel();
        purged += timer.purge();
    }
}
