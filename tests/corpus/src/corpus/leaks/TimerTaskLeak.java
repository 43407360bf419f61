/*
 * TimerTaskLeak: one application-wide java.util.Timer (a static field). Every loop opens a
 * session and schedules its expiry reminder an hour ahead; the session ends within the loop but
 * the reminder is never cancelled, so the timer's task queue gains one TimerTask per loop (none
 * fires during a run).
 *
 * Expected:      LEAK
 * Growing node:  the java.util.TaskQueue of the timer, INSTANCE_FIELD TaskQueue.queue
 *                -> java.util.TimerTask[] (a binary heap of 128 slots, doubled when full: 256
 *                from loop 127, 512 from loop 255, 1024 from loop 511) => TimerTaskLeak$Expiry.
 *                The TaskQueue is reached along three paths:
 *                - STATIC_FIELD corpus.leaks.TimerTaskLeak.timer -> java.util.Timer
 *                  -> INSTANCE_FIELD Timer.queue -> TaskQueue (the useful one)
 *                - GcRoot(ThreadObject) "corpus-timer" (a java.util.TimerThread)
 *                  -> INSTANCE_FIELD TimerThread.queue -> TaskQueue; the same thread's frame
 *                  (TimerThread.mainLoop, TIMED_WAITING on the TaskQueue's monitor) also holds
 *                  the queue (the synchronized block's lock slot) and the head task, the
 *                  Housekeeping task, as JavaFrame roots
 *                - the JDK's common Cleaner: jdk.internal.ref.CleanerImpl's list of
 *                  PhantomCleanableRef -> action -> java.util.Timer$ThreadReaper -> queue
 * Growth:        +1 TimerTaskLeak$Expiry per loop (5 objects: the task, its TimerTask.lock
 *                Object, its corpus.app.Item, the Item's sku String + byte[])
 * Growing call:  corpus.leaks.TimerTaskLeak.run(TimerTaskLeak.java:88) (Timer.schedule ->
 *                TaskQueue.add, an array store inside the JDK)
 * Settled:       the constructor schedules a housekeeping task half an hour ahead and waits
 *                (yielding, no clock) until the timer thread is TIMED_WAITING on it. Reminders
 *                are due later than it, so schedule() never wakes the timer thread (it notifies
 *                only for a new head). Timer's thread is a daemon (Timer(name, true)) with the
 *                default stack size: Timer has no way to set it. Timer.schedule reads the wall
 *                clock; only a clock step back by more than half an hour would make a reminder
 *                the head and wake the thread
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 4, 6, 8, 12, 20, 36, 68, 132,
 *                260, 516 tasks in the queue (n reminders + Housekeeping); TimerTask[] 128 slots up
 *                to loop 67, then 256, 512, 1024; timer thread TIMED_WAITING at every checkpoint;
 *                JVM live objects +5.0 per loop
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: reported
 *                along the STACK-LOCAL path, exit 1: GcRoot(ThreadObject) -> LOCAL Thread. ->
 *                TaskQueue -> INSTANCE_FIELD TaskQueue.queue -> TimerTask[], children 3, 5, 7, 9,
 *                11, 17, 23 Expiry; not through TimerTaskLeak.timer -> Timer.queue
 * Shark:         not run
 */
package corpus.leaks;

import corpus.app.Item;
import corpus.app.Threads;
import java.util.Timer;
import java.util.TimerTask;

public class TimerTaskLeak implements Runnable {
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

    public TimerTaskLeak() {
        Thread timerThread = Threads.threadOf(timer);
        timer.schedule(new Housekeeping(), HALF_AN_HOUR_MS);
        Threads.awaitState(timerThread, Thread.State.TIMED_WAITING);
    }

    @Override
    public void run() {
        loop++;
        TimerTask expiry = new Expiry(new Item("session-" + loop, loop)); // ALLOCATED
        timer.schedule(expiry, ONE_HOUR_MS); // GROWS
        // Bug: the session ends here, but expiry.cancel() is never called.
    }
}
