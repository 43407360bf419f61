/*
 * HaltsInRun: its fourth run() calls Runtime.getRuntime().halt(0), which ends the JVM without
 * running shutdown hooks.
 *
 * Expected: ERROR (exit status 2), naming the scenario and loop 4 (the call site is not known:
 * no shutdown hook runs); nothing is left in $TMPDIR.
 */
package corpus.bad;

public class HaltsInRun implements Runnable {
    /** The run() call (1-based) that halts. */
    public static final int HALTING_LOOP = 4;

    private int calls;

    @Override
    public void run() {
        calls++;
        if (calls == HALTING_LOOP) {
            Runtime.getRuntime().halt(0); // THROWS
        }
    }
}
