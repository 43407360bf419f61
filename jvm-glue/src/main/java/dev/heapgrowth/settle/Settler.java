package dev.heapgrowth.settle;

import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
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
    /** The JDK's threads that clean up after a collection: cleaners, finalizers. */
    private static final Set<String> CLEANUP_THREADS = Set.of("Common-Cleaner", "Finalizer");

    private final Set<Thread> before = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Set<Thread> neverIdle = Collections.newSetFromMap(new IdentityHashMap<>());
    /** False once a collection was asked for and never came (-XX:+DisableExplicitGC). */
    private boolean explicitCollections = true;

    /** A settler that waits for the threads started after this call. */
    public Settler() {
        Collections.addAll(before, allThreads());
    }

    /**
     * Waits until the scenario's background work is idle, up to two seconds.
     *
     * @return whether it settled (false: the time ran out)
     */
    public boolean settle() throws InterruptedException {
        return settle(DEFAULT_TIMEOUT_MILLIS);
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
        Thread self = Thread.currentThread();
        List<Thread> watched = new ArrayList<>();
        Set<Thread> busy = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Thread thread : allThreads()) {
            boolean ours = !before.contains(thread)
                    || (withCleanup && CLEANUP_THREADS.contains(thread.getName()));
            if (thread != self && ours && !neverIdle.contains(thread)) {
                watched.add(thread);
                if (thread.getState() == Thread.State.RUNNABLE) {
                    busy.add(thread);
                }
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
