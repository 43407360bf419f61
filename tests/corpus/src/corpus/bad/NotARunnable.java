/*
 * NotARunnable: has a public no-arg constructor and even a public void run() method, but does
 * not implement java.lang.Runnable.
 *
 * Expected: ERROR (exit status 2) before any loop: "corpus.bad.NotARunnable does not implement
 * java.lang.Runnable" (or words to that effect); the constructor must not matter.
 */
package corpus.bad;

public class NotARunnable {
    private int calls;

    public NotARunnable() {
    }

    public void run() {
        calls++;
    }
}
