/*
 * ThrowsInConstructor: a Runnable whose public no-arg constructor always throws
 * java.lang.IllegalStateException("boom in constructor"); run() is never reached.
 * Reflection wraps it in java.lang.reflect.InvocationTargetException: the tool should report
 * the cause.
 *
 * Expected: ERROR (exit status 2), before any loop:
 *   java.lang.IllegalStateException: boom in constructor
 *     at corpus.bad.ThrowsInConstructor.loadSettings(ThrowsInConstructor.java:22)
 *     at corpus.bad.ThrowsInConstructor.<init>(ThrowsInConstructor.java:18)
 */
package corpus.bad;

public class ThrowsInConstructor implements Runnable {
    private final String settings;

    public ThrowsInConstructor() {
        settings = loadSettings(); // THROWS (via loadSettings)
    }

    private static String loadSettings() {
        throw new IllegalStateException("boom in constructor"); // THROWS
    }

    @Override
    public void run() {
        settings.length();
    }
}
