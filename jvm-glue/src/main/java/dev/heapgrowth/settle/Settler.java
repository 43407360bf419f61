package dev.heapgrowth.settle;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ForkJoinPool;

/**
 * Lets work that a scenario's loops handed to other threads finish before a heap dump, so the
 * dump does not catch it half done: a cache maintained on the common {@link ForkJoinPool}
 * (Caffeine), a task given to the scenario's own executor, a worker thread taking an item from
 * a queue. One implementation for every front end (the engine's scenario host, the JUnit
 * extension, Rust scenarios).
 *
 * <p>Settled means: the common pool is quiescent, and every thread started since this settler
 * was created is waiting, blocked, or gone, at two polls in a row, and none of them is waiting
 * for a CPU: a thread that another just woke up (an executor's worker given a task) still reads
 * WAITING until the scheduler runs it, which on a loaded machine takes milliseconds, so the
 * kernel's view of the thread counts too ({@link KernelThreads}). A thread that is still
 * running when the time limit ends (a busy loop, a thread reading a socket) is not waited for
 * again.
 *
 * <p>Before a heap dump ({@link #settle()}) it also waits out the period of the threads that
 * sleep with a timeout (TIMED_WAITING): a library's timer thread that drops cancelled tasks, or
 * expires cache entries, on its own tick (Netty's wheel timer every 100 ms; a scheduled
 * executor's worker when its next task is due; Caffeine's scheduler). A dump taken between the
 * loops and that thread's next tick would find everything the loops handed to it, and a burst
 * of twice the loops twice as much: growth, on a clean scenario. Each such thread is given until
 * it has woken and gone back to sleep, and then stayed asleep for {@link #QUIET_MILLIS}, up to
 * {@link #PERIOD_BOUND_MILLIS}; one that has not woken by then sleeps longer than a tick (a
 * timer whose next task is an hour ahead) and is not waited for again.
 *
 * <p>Only reads thread states: it runs no task itself, so the scenario sees no thread of
 * heapgrowth's doing its work.
 */
public final class Settler {
    /** How long one {@link #settle} waits at most. */
    private static final long DEFAULT_TIMEOUT_MILLIS = 2_000;
    /** How long {@link #collectGarbage} waits for the collection's references to be handled. */
    private static final long REFERENCES_TIMEOUT_MILLIS = 500;
    /** Polls in a row that must find everything idle. */
    private static final int IDLE_POLLS = 2;
    /**
     * How long {@link #settle()} waits at most for the threads that sleep with a timeout to
     * wake once: more than Caffeine's scheduling tolerance (2^30 ns, about 1.07 s, the shortest
     * delay its pacer schedules), ten of Netty's default ticks.
     */
    static final long PERIOD_BOUND_MILLIS = 1_500;
    /**
     * How long the threads that woke must then stay asleep: a scheduled executor drains tasks
     * due one after the other by waking once for each, microseconds apart.
     */
    static final long QUIET_MILLIS = 20;
    /**
     * A thread still waking after this long keeps a period shorter than {@link #QUIET_MILLIS}
     * (a ticker): its period has been waited out many times over.
     */
    static final long TICKER_MILLIS = 5 * QUIET_MILLIS;
    /** The JDK's threads that clean up after a collection: cleaners, finalizers. */
    private static final Set<String> CLEANUP_THREADS = Set.of("Common-Cleaner", "Finalizer");

    private final Set<Thread> before = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Set<Thread> neverIdle = Collections.newSetFromMap(new IdentityHashMap<>());
    /** Threads that slept with a timeout through a whole {@link #PERIOD_BOUND_MILLIS}. */
    private final Set<Thread> longSleepers = Collections.newSetFromMap(new IdentityHashMap<>());
    private final ThreadMXBean threadBean = ManagementFactory.getThreadMXBean();
    /**
     * Whether the last {@link #settle()} stopped waiting at {@link #PERIOD_BOUND_MILLIS}: for a
     * thread that kept waking without ever staying asleep {@link #QUIET_MILLIS}, or for one
     * that did not wake at all (a long sleeper, seen for the first time).
     */
    private boolean periodsCutShort;
    /** False once a collection was asked for and never came (-XX:+DisableExplicitGC). */
    private boolean explicitCollections = true;

    /** A settler that waits for the threads started after this call. */
    public Settler() {
        Collections.addAll(before, allThreads());
    }

    /**
     * Waits until the scenario's background work is idle, up to two seconds, and then out the
     * period of its threads that sleep with a timeout (up to {@link #PERIOD_BOUND_MILLIS} more),
     * and until what they woke for is idle too (up to two seconds more): the wait before a heap
     * dump.
     *
     * @return whether it settled within its bounds (false: the two seconds ran out with a
     *     thread still busy, or a timer thread did not wake and go back to sleep within
     *     {@link #PERIOD_BOUND_MILLIS}; the report says so)
     */
    public boolean settle() throws InterruptedException {
        boolean idle = settle(DEFAULT_TIMEOUT_MILLIS);
        if (idle && awaitPeriods()) {
            // What the timer threads handed on (Caffeine's maintenance on the common pool).
            idle = settle(DEFAULT_TIMEOUT_MILLIS);
        }
        return idle && !periodsCutShort;
    }

    /**
     * Waits until every watched thread that sleeps with a timeout now has woken and gone back
     * to sleep (or to an untimed wait, or ended), and no such thread has woken for
     * {@link #QUIET_MILLIS}; up to {@link #PERIOD_BOUND_MILLIS}. A thread that never woke by
     * then is a long sleeper, never waited for again.
     *
     * @return whether any thread woke (its work may need settling)
     */
    private boolean awaitPeriods() throws InterruptedException {
        periodsCutShort = false;
        Map<Thread, Long> sleepers = new IdentityHashMap<>();
        for (Thread thread : watchedThreads(false)) {
            if (thread.getState() == Thread.State.TIMED_WAITING && !longSleepers.contains(thread)) {
                sleepers.put(thread, waitedCount(thread));
            }
        }
        if (sleepers.isEmpty()) {
            return false;
        }
        long started = System.nanoTime();
        Map<Thread, Long> firstWake = new IdentityHashMap<>();
        long lastWake = started;
        while (true) {
            Thread.sleep(1);
            long now = System.nanoTime();
            for (Map.Entry<Thread, Long> sleeper : sleepers.entrySet()) {
                Thread thread = sleeper.getKey();
                long waited = waitedCount(thread);
                Thread.State state = thread.getState();
                boolean untimed = state == Thread.State.WAITING || state == Thread.State.TERMINATED;
                if (waited != sleeper.getValue() || (untimed && !firstWake.containsKey(thread))) {
                    sleeper.setValue(waited);
                    firstWake.putIfAbsent(thread, now);
                    lastWake = now;
                }
            }
            boolean allWoke = firstWake.size() == sleepers.size();
            boolean quiet = now - lastWake >= QUIET_MILLIS * 1_000_000;
            boolean tickers = allWoke && firstWake.values().stream()
                    .allMatch(first -> now - first >= TICKER_MILLIS * 1_000_000);
            if (allWoke && (quiet || tickers)) {
                return true;
            }
            if (now - started >= PERIOD_BOUND_MILLIS * 1_000_000) {
                for (Thread thread : sleepers.keySet()) {
                    if (!firstWake.containsKey(thread)) {
                        longSleepers.add(thread);
                    }
                }
                // Cut short: tickers that never stayed asleep, or long sleepers seen for the
                // first time (never waited for again, so a later settle is not cut by them).
                periodsCutShort = true;
                return !firstWake.isEmpty();
            }
        }
    }

    /** How many times {@code thread} has waited (slept, parked, waited on a monitor); -1 ended. */
    private long waitedCount(Thread thread) {
        ThreadInfo info = threadBean.getThreadInfo(thread.getId(), 0);
        return info == null ? -1 : info.getWaitedCount();
    }

    /**
     * Runs a full collection and waits until what it found to clean up is cleaned up: the
     * references it cleared are handed to their queues, and the JDK's cleaner and finalizer
     * threads (and the scenario's) are idle again. The engine calls this a fixed number of
     * loops before each heap dump, so every dump holds the same number of loops' worth of
     * garbage that is cleaned up late (stale {@code WeakHashMap} entries, which a map expunges
     * only when it is next used; cleanables waiting for the cleaner thread), however far apart
     * the dumps are.
     */
    public void collectGarbage() throws InterruptedException {
        if (!explicitCollections) {
            return;
        }
        ReferenceQueue<Object> queue = new ReferenceQueue<>();
        PhantomReference<Object> sentinel = new PhantomReference<>(new Object(), queue);
        System.gc();
        if (queue.remove(REFERENCES_TIMEOUT_MILLIS) == null) {
            explicitCollections = false;
        }
        Reference.reachabilityFence(sentinel);
        settle(DEFAULT_TIMEOUT_MILLIS, true);
    }

    /** Waits until the scenario's background work is idle, up to {@code timeoutMillis}. */
    public boolean settle(long timeoutMillis) throws InterruptedException {
        return settle(timeoutMillis, false);
    }

    private boolean settle(long timeoutMillis, boolean withCleanup) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
        int idlePolls = 0;
        while (true) {
            Set<Thread> busy = busyThreads(withCleanup);
            boolean idle = busy.isEmpty() && ForkJoinPool.commonPool().isQuiescent();
            idlePolls = idle ? idlePolls + 1 : 0;
            if (idlePolls >= IDLE_POLLS) {
                return true;
            }
            if (System.nanoTime() - deadline > 0) {
                neverIdle.addAll(busy);
                return false;
            }
            Thread.sleep(1);
        }
    }

    /**
     * Threads started since this settler was made (and, with {@code withCleanup}, the JDK's
     * cleanup threads) that are running now, or, when none is, that the kernel has ready to run.
     */
    private Set<Thread> busyThreads(boolean withCleanup) {
        List<Thread> watched = watchedThreads(withCleanup);
        Set<Thread> busy = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Thread thread : watched) {
            if (thread.getState() == Thread.State.RUNNABLE) {
                busy.add(thread);
            }
        }
        if (busy.isEmpty() && !watched.isEmpty()) {
            // Only when the states say idle: reading the kernel's view costs a file per thread.
            Set<String> readyToRun = KernelThreads.readyToRun();
            for (Thread thread : watched) {
                if (readyToRun.contains(KernelThreads.kernelName(thread))) {
                    busy.add(thread);
                }
            }
        }
        return busy;
    }

    /**
     * The threads started since this settler was made (and, with {@code withCleanup}, the
     * JDK's cleanup threads), but for the calling thread and those never idle.
     */
    private List<Thread> watchedThreads(boolean withCleanup) {
        Thread self = Thread.currentThread();
        List<Thread> watched = new ArrayList<>();
        for (Thread thread : allThreads()) {
            boolean ours = !before.contains(thread)
                    || (withCleanup && CLEANUP_THREADS.contains(thread.getName()));
            if (thread != self && ours && !neverIdle.contains(thread)) {
                watched.add(thread);
            }
        }
        return watched;
    }

    /** The live platform threads, from the root thread group (cheaper than stack traces). */
    private static Thread[] allThreads() {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] threads = new Thread[root.activeCount() + 16];
        int count;
        while ((count = root.enumerate(threads, true)) == threads.length) {
            threads = new Thread[threads.length * 2];
        }
        Thread[] live = new Thread[count];
        System.arraycopy(threads, 0, live, 0, count);
        return live;
    }
}
