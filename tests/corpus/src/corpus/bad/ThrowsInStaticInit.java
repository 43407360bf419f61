/*
 * ThrowsInStaticInit: a Runnable whose static initializer throws
 * java.lang.IllegalStateException("boom in static initializer"). Creating the instance fails
 * with java.lang.ExceptionInInitializerError whose cause is that exception (and any later
 * attempt in the same class loader with NoClassDefFoundError).
 *
 * Expected: ERROR (exit status 2), before any loop:
 *   java.lang.ExceptionInInitializerError
 *   Caused by: java.lang.IllegalStateException: boom in static initializer
 *     at corpus.bad.ThrowsInStaticInit.readDefaults(ThrowsInStaticInit.java:19)
 *     at corpus.bad.ThrowsInStaticInit.<clinit>(ThrowsInStaticInit.java:16)
 */
package corpus.bad;

public class ThrowsInStaticInit implements Runnable {
    private static final int DEFAULT_LIMIT = readDefaults(); // THROWS (via readDefaults)

    private static int readDefaults() {
        throw new IllegalStateException("boom in static initializer"); // THROWS
    }

    @Override
    public void run() {
        Integer.toString(DEFAULT_LIMIT);
    }
}
