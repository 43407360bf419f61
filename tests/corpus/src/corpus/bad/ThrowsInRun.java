/*
 * ThrowsInRun: runs fine twice, then its third run() call throws
 * java.lang.IllegalStateException("boom on loop 3") from checkout(), called by run().
 *
 * Expected: ERROR (exit status 2), naming loop 3 and the exception with its stack:
 *   java.lang.IllegalStateException: boom on loop 3
 *     at corpus.bad.ThrowsInRun.checkout(ThrowsInRun.java:27)
 *     at corpus.bad.ThrowsInRun.run(ThrowsInRun.java:22)
 * With the default warm-up of 3 loops, this happens before the first dump.
 */
package corpus.bad;

public class ThrowsInRun implements Runnable {
    /** The run() call (1-based) that throws. */
    public static final int FAILING_LOOP = 3;

    private int calls;

    @Override
    public void run() {
        calls++;
        checkout(calls); // THROWS (via checkout)
    }

    private void checkout(int loop) {
        if (loop == FAILING_LOOP) {
            throw new IllegalStateException("boom on loop " + loop); // THROWS
        }
    }
}
