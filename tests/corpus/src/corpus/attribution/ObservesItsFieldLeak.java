/*
 * ObservesItsFieldLeak: a leak whose code observes its own field the ways real code does, and
 * turns any change it sees into an exception on its next loop. The static field `items`
 * (declared List, holding an ArrayList) gains one Item per loop. Every loop, before the add,
 * run() checks:
 *   (a) identity: System.identityHashCode(items) is what it was at loop 1;
 *   (b) class:    items.getClass() == ArrayList.class;
 *   (e) publishing: `published` (a second static field, set to items at the end of every loop)
 *                 is still the same object as items;
 *   (c) lock:     synchronized (items) excludes a daemon "lock-probe" thread, started in the
 *                 constructor, that synchronizes on the ORIGINAL list it captured then: run()
 *                 holds the lock, sets a volatile flag, hands the probe a token and waits until
 *                 the probe is BLOCKED (same monitor) or has got in anyway (it then finds the
 *                 flag set: another monitor); no clock;
 *   (d) cast:     the add goes through a cast, ((ArrayList<Item>) items).add(...).
 * Anomalies (a, b, c, e) go into a static counter that is printed nowhere; when it is non-zero,
 * every later loop throws IllegalStateException("observed a changed field: ..."). A cast that
 * fails (d) throws ClassCastException at once. Run plainly it never throws: the field always
 * holds the one ArrayList, and only attribution's recorders could change what the code sees.
 *
 * Expected:      LEAK
 * Growing node:  STATIC_FIELD corpus.attribution.ObservesItsFieldLeak.items -> java.util.ArrayList
 *                => corpus.app.Item (the same list is also reached from STATIC_FIELD
 *                ObservesItsFieldLeak.published, declared Object, and from the lock-probe thread:
 *                Thread.target -> ObservesItsFieldLeak$LockProbe -> original)
 * Growth:        +1 corpus.app.Item per loop (3 objects)
 * Growing call:  corpus.attribution.ObservesItsFieldLeak.run(ObservesItsFieldLeak.java:146)
 * Settled:       the probe has taken its token, passed its synchronized block and counted it (a
 *                volatile counter), and is WAITING again in SynchronousQueue.take before run()
 *                returns
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 1 in 3 of 3; node STATIC_FIELD ObservesItsFieldLeak.items ->
 *                ArrayList, children at loops 3, 7, 15, 31, 124, 496, 1000: 3, 7, 15, 31, 124, 496,
 *                1000 Items. Attribution (all 3): not_attributed, "the scenario threw during the
 *                attribution loops (loop 1002): java.lang.IllegalStateException: observed a changed
 *                field: identity: items is not the object it was at loop 1 (loop 1001) (4
 *                anomalies); the recorder was removed (fields restored, watches off)": the proxy's
 *                loop 1001 saw identity, class, publishing and lock change (4 anomalies), and its
 *                cast must then have thrown ClassCastException (a Proxy is no ArrayList) before the
 *                add; the recorder tried next (by docs/attribution.md the container watch) met the
 *                IllegalStateException on its first loop. The path follows declaration order
 *                between the two static fields: with `published` declared after `items`, the node
 *                was STATIC_FIELD ObservesItsFieldLeak.published -> ArrayList (declared Object: no
 *                proxy), attributed, calls to add() at the GROWS line (by the docs' order a
 *                container watch), nothing thrown
 */
package corpus.attribution;

import corpus.app.Item;
import corpus.app.Threads;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.atomic.AtomicInteger;

public class ObservesItsFieldLeak implements Runnable {
    public static final long STACK_SIZE = 64 * 1024;

    // `published` is declared first on purpose: of two static fields holding the list, the
    // report's path went through the one declared last (with `published` last, the path was
    // `published`, declared Object, and no proxy was tried).
    private static Object published;
    private static List<Item> items = new ArrayList<>();

    private static final AtomicInteger ANOMALIES = new AtomicInteger();
    private static volatile String firstAnomaly;

    static void anomaly(String what) {
        if (ANOMALIES.getAndIncrement() == 0) {
            firstAnomaly = what;
        }
    }

    /** Locks the list captured at construction whenever it is handed a token. */
    static final class LockProbe implements Runnable {
        private final Object original;
        private final BlockingQueue<Integer> tokens = new SynchronousQueue<>();
        volatile boolean runHoldsLock;
        volatile int passed;

        LockProbe(Object original) {
            this.original = original;
        }

        @Override
        public void run() {
            try {
                while (true) {
                    int loop = tokens.take();
                    synchronized (original) {
                        if (runHoldsLock) {
                            anomaly("lock: run() holds the lock of the field's value at loop " + loop
                                    + ", yet the original list's monitor was free");
                        }
                    }
                    passed = loop;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void hand(int loop) {
            try {
                tokens.put(loop);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
    }

    private final LockProbe probe = new LockProbe(items);
    private final Thread probeThread;

    private int loop;
    private int identityAtLoop1;

    public ObservesItsFieldLeak() {
        probeThread = new Thread(null, probe, "lock-probe", STACK_SIZE);
        probeThread.setDaemon(true);
        probeThread.start();
        Threads.awaitWaiting(probeThread);
    }

    @Override
    public void run() {
        loop++;
        if (ANOMALIES.get() != 0) {
            throw new IllegalStateException("observed a changed field: " + firstAnomaly
                    + " (" + ANOMALIES.get() + " anomalies)");
        }
        if (loop == 1) {
            identityAtLoop1 = System.identityHashCode(items);
        } else if (System.identityHashCode(items) != identityAtLoop1) {
            anomaly("identity: items is not the object it was at loop 1 (loop " + loop + ")");
        }
        if (items.getClass() != ArrayList.class) {
            anomaly("class: items is a " + items.getClass().getName() + " at loop " + loop);
        }
        if (loop > 1 && published != items) {
            anomaly("publishing: items is not the list published at loop " + (loop - 1));
        }
        checkLock();
        ((ArrayList<Item>) items).add(new Item("seen-" + loop, loop)); // GROWS
        published = items;
    }

    private void checkLock() {
        synchronized (items) {
            probe.runHoldsLock = true;
            probe.hand(loop);
            while (probeThread.getState() != Thread.State.BLOCKED && probe.passed < loop) {
                Thread.yield();
            }
            probe.runHoldsLock = false;
        }
        while (probe.passed < loop) {
            Thread.yield();
        }
        Threads.awaitWaiting(probeThread);
    }
}
