/*
 * BlocksForever: its third run() waits on a latch that nobody counts down, as a test whose
 * server never answers would.
 *
 * Expected: ERROR (exit status 2) once --scenario-timeout passes, naming loop 3 and the
 * scenario thread's stack (CountDownLatch.await in BlocksForever.run, BlocksForever.java:25);
 * the scenarios after it still run.
 */
package corpus.bad;

import java.util.concurrent.CountDownLatch;

public class BlocksForever implements Runnable {
    /** The run() call (1-based) that blocks. */
    public static final int BLOCKING_LOOP = 3;

    private final CountDownLatch never = new CountDownLatch(1);
    private int calls;

    @Override
    public void run() {
        calls++;
        if (calls == BLOCKING_LOOP) {
            try {
                never.await(); // THROWS
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
