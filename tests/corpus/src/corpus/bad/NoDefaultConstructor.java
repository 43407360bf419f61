/*
 * NoDefaultConstructor: implements java.lang.Runnable but its only constructor takes a String.
 *
 * Expected: ERROR (exit status 2) before any loop: "corpus.bad.NoDefaultConstructor has no
 * public no-arg constructor" (or words to that effect).
 */
package corpus.bad;

public class NoDefaultConstructor implements Runnable {
    private final String name;
    private int calls;

    public NoDefaultConstructor(String name) {
        this.name = name;
    }

    @Override
    public void run() {
        calls += name.length();
    }
}
