/*
 * ExitsInRun: its fifth run() calls System.exit(0) from shutDown(), as a library's "fatal error"
 * path or a command-line main() reused as a scenario would.
 *
 * Expected: ERROR (exit status 2, not the scenario's 0), naming the scenario, loop 5 and the
 * call site ExitsInRun.java:27; the reports of the scenarios before it are still written, and
 * nothing is left in $TMPDIR.
 */
package corpus.bad;

public class ExitsInRun implements Runnable {
    /** The run() call (1-based) that exits. */
    public static final int EXITING_LOOP = 5;

    private int calls;

    @Override
    public void run() {
        calls++;
        if (calls == EXITING_LOOP) {
            shutDown(); // THROWS (via shutDown)
        }
    }

    private static void shutDown() {
        // Status 0: the run must still not look like "nothing grows".
        System.exit(0); // THROWS
    }
}
