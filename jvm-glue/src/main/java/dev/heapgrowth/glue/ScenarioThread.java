package dev.heapgrowth.glue;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;

/**
 * The thread a scenario lives on: it constructs the instance, then runs loops on request.
 *
 * <p>The scenario always runs on this same thread, so thread-local leaks accumulate where they
 * would in the user's code. The instance is held only in the field {@link #scenario}, so a
 * leak path reads {@code GcRoot(ThreadObject) → INSTANCE_FIELD ScenarioThread.scenario →
 * instance of com.example.Cart}. To keep it that way, no method of this class keeps the
 * instance in a local variable while the thread waits (a heap dump taken between loops would
 * otherwise also find it through a Java frame root).
 */
final class ScenarioThread extends Thread {
    /** The scenario instance; null before construction and after shutdown. */
    private Runnable scenario;

    private final String className;
    /** Cleared once used, so the thread holds the scenario class only through the instance. */
    private Constructor<?> constructor;

    // Hand-off between the engine's thread and this one, all guarded by `lock`. A private lock,
    // not `this`: Thread.join synchronizes on the thread object.
    private final Object lock = new Object();
    private boolean constructed;
    private boolean closing;
    private boolean finished;
    private int requestedLoops;
    private boolean batchDone;
    /** Written under {@link #lock}; volatile for {@link #loopInProgress}, which takes no lock. */
    private volatile int loopsRun;
    private Throwable failure;
    private int failedLoop;
    /** Set when the engine stopped waiting for this thread (a time limit): nobody joins it. */
    private boolean abandoned;

    ScenarioThread(String className, Constructor<?> constructor, ClassLoader loader) {
        super("heapgrowth-scenario");
        this.className = className;
        this.constructor = constructor;
        setDaemon(true);
        setContextClassLoader(loader);
    }

    @Override
    public void run() {
        try {
            if (construct()) {
                serveLoops();
            }
        } finally {
            // The thread object can outlive join() for a moment (and stays a GC root until the
            // JVM has removed the thread), so drop what would keep the scenario alive now. Not
            // `failure`: a constructor's failure is still to be handed to the engine.
            scenario = null;
            setContextClassLoader(null);
            synchronized (lock) {
                finished = true;
                batchDone = true;
                lock.notifyAll();
            }
        }
    }

    /** Constructs the instance into {@link #scenario}; reports a failure as loop 0. */
    private boolean construct() {
        Throwable thrown = null;
        try {
            scenario = (Runnable) constructor.newInstance();
        } catch (InvocationTargetException e) {
            thrown = e.getCause();
        } catch (Throwable t) {
            thrown = t;
        } finally {
            constructor = null;
        }
        synchronized (lock) {
            constructed = true;
            if (thrown != null) {
                failure = thrown;
                failedLoop = 0;
            }
            lock.notifyAll();
        }
        return thrown == null;
    }

    /**
     * Serves batches until shutdown. The batch runs in its own method so that nothing it touched
     * (the instance, a thrown exception) stays in a local of this frame while it waits.
     */
    private void serveLoops() {
        int count;
        while ((count = awaitRequest()) >= 0) {
            runBatch(count);
        }
    }

    private void runBatch(int count) {
        Throwable thrown = null;
        int loop = 0;
        for (int i = 0; i < count && thrown == null; i++) {
            synchronized (lock) {
                loop = ++loopsRun;
            }
            thrown = runOneLoop();
        }
        synchronized (lock) {
            if (thrown != null) {
                failure = thrown;
                failedLoop = loop;
            }
            batchDone = true;
            lock.notifyAll();
        }
    }

    /** One {@code run()}; its frame (and the local holding the instance) ends with the loop. */
    private Throwable runOneLoop() {
        try {
            scenario.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    /** Waits for the next batch; -1 when the thread should end. */
    private int awaitRequest() {
        synchronized (lock) {
            while (requestedLoops == 0 && !closing) {
                try {
                    lock.wait();
                } catch (InterruptedException e) {
                    // A scenario may interrupt its own thread; shutdown uses `closing`, not
                    // interrupts, so keep waiting.
                }
            }
            if (closing) {
                return -1;
            }
            int count = requestedLoops;
            requestedLoops = 0;
            return count;
        }
    }

    /**
     * The loop running now (or the last one run), counting from 1. Lock-free: the JVM's shutdown
     * hooks call it while this thread is stopped inside {@code System.exit}.
     */
    int loopInProgress() {
        return loopsRun;
    }

    /**
     * Called by the engine's thread: waits until the constructor has run, at most
     * {@code timeoutMillis}.
     */
    void awaitConstructed(long timeoutMillis) throws ScenarioFailure, ScenarioTimeout {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        synchronized (lock) {
            while (!constructed && !finished) {
                waitUntil(deadline, 0);
            }
            takeFailure();
        }
    }

    /**
     * Called by the engine's thread: runs {@code count} loops and waits for them, at most
     * {@code timeoutMillis}; then this thread is given up (it may be blocked for good).
     */
    int runLoops(int count, long timeoutMillis) throws ScenarioFailure, ScenarioTimeout {
        if (count < 0) {
            throw new IllegalArgumentException("negative loop count " + count);
        }
        synchronized (lock) {
            if (finished || closing) {
                throw new IllegalStateException("scenario " + className + " has stopped");
            }
            if (count == 0) {
                return loopsRun;
            }
            long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
            batchDone = false;
            requestedLoops = count;
            lock.notifyAll();
            while (!batchDone) {
                waitUntil(deadline, loopsRun);
            }
            takeFailure();
            return loopsRun;
        }
    }

    /** Called by the engine's thread: ends this thread, waiting up to {@code timeoutMillis}. */
    void shutdown(long timeoutMillis) {
        synchronized (lock) {
            closing = true;
            lock.notifyAll();
            if (abandoned) {
                return;
            }
        }
        try {
            join(timeoutMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void takeFailure() throws ScenarioFailure {
        if (failure != null) {
            Throwable cause = failure;
            failure = null;
            throw new ScenarioFailure(className, failedLoop, cause);
        }
    }

    /**
     * Waits on {@link #lock} (held) until notified or {@code deadline} ({@code System.nanoTime}),
     * then gives this thread up with a timeout naming {@code loop}. The engine's thread is a
     * native thread attached by Rust; nobody interrupts it.
     */
    private void waitUntil(long deadline, int loop) throws ScenarioTimeout {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            abandoned = true;
            requestedLoops = 0;
            throw new ScenarioTimeout(loop, this);
        }
        try {
            lock.wait(Math.max(1, left / 1_000_000L));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
