/*
 * ObservesItsFieldClean: clean twin of ObservesItsFieldLeak. The same checks of its own static
 * field (identity, class, publishing, the lock shared with the "lock-probe" thread, the cast
 * before the add), but the list is cleared right after the add, so it keeps no item between
 * loops. Run plainly it never throws.
 *
 * Expected:      CLEAN
 * Growing node:  none: STATIC_FIELD ObservesItsFieldClean.items -> ArrayList, empty between loops
 * Growth:        0
 * Settled:       as ObservesItsFieldLeak
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 0 in 3 of 3, nothing reported, nothing leveled off (31 loops, 4
 *                snapshots)
 */
package corpus.attribution;

import corpus.app.Item;
import corpus.app.Threads;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.atomic.AtomicInteger;

public class ObservesItsFieldClean implements Runnable {
    public static final long STACK_SIZE = 64 * 1024;

    // `published` is declared first, as in ObservesItsFieldLeak (where the order decides the
    // report's path).
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

    public ObservesItsFieldClean() {
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
        ((ArrayList<Item>) items).add(new Item("seen-" + loop, loop));
        items.clear();
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
