/*
 * Deadlocks: its second run() takes lock `first` and then wants `second`, which a helper thread
 * took and holds while it wants `first`: a lock-order deadlock.
 *
 * Expected: ERROR (exit status 2) once --scenario-timeout passes, naming loop 2, the deadlock
 * the JVM sees (the scenario thread and deadlock-helper, each waiting for the other's lock) and
 * the scenario thread's stack at Deadlocks.java:38.
 */
package corpus.bad;

import java.util.concurrent.CountDownLatch;

public class Deadlocks implements Runnable {
    private final Object first = new Object();
    private final Object second = new Object();
    private int calls;

    @Override
    public void run() {
        calls++;
        if (calls != 2) {
            return;
        }
        CountDownLatch helperHasSecond = new CountDownLatch(1);
        Thread helper = new Thread(() -> {
            synchronized (second) {
                helperHasSecond.countDown();
                synchronized (first) {
                    second.notifyAll();
                }
            }
        }, "deadlock-helper");
        helper.setDaemon(true);
        synchronized (first) {
            helper.start();
            awaitQuietly(helperHasSecond);
            // One line: a thread blocked entering a monitor may report the line after it.
            synchronized (second) { second.notifyAll(); } // THROWS
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
