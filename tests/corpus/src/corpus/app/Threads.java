package corpus.app;

import java.util.Timer;
import java.util.TimerTask;
import java.util.concurrent.CountDownLatch;

/** Helpers for the thread scenarios: waiting (without clocks) until a thread has settled. */
public final class Threads {
    private Threads() {
    }

    /**
     * Yields until {@code thread} is parked or waiting (WAITING or TIMED_WAITING). Only call it
     * when the thread's next wait is the one meant: a thread that has just been woken still shows
     * its old state for a moment.
     */
    public static void awaitWaiting(Thread thread) {
        while (true) {
            Thread.State state = thread.getState();
            if (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING) {
                return;
            }
            if (state == Thread.State.TERMINATED) {
                throw new IllegalStateException(thread.getName() + " ended");
            }
            Thread.yield();
        }
    }

    /** Yields until {@code thread} is in {@code state}. */
    public static void awaitState(Thread thread, Thread.State state) {
        while (thread.getState() != state) {
            if (thread.getState() == Thread.State.TERMINATED) {
                throw new IllegalStateException(thread.getName() + " ended");
            }
            Thread.yield();
        }
    }

    /** Joins {@code thread}, turning an interrupt into an unchecked exception. */
    public static void join(Thread thread) {
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while joining " + thread.getName(), e);
        }
    }

    /** The thread of {@code timer}, found by running a task on it at once. */
    public static Thread threadOf(Timer timer) {
        Probe probe = new Probe();
        timer.schedule(probe, 0L);
        try {
            probe.ran.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while probing the timer", e);
        }
        return probe.thread;
    }

    private static final class Probe extends TimerTask {
        final CountDownLatch ran = new CountDownLatch(1);
        volatile Thread thread;

        @Override
        public void run() {
            thread = Thread.currentThread();
            ran.countDown();
        }
    }
}
