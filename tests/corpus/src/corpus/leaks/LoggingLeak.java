/*
 * LoggingLeak: a list that grows by one String per loop, in a scenario that logs every loop to
 * System.out (and System.err), as libraries with a console logger do.
 *
 * Expected: LEAK; with --format json, stdout holds the JSON report alone (what the scenario
 * prints goes to stderr). Growing call: LoggingLeak.java:21.
 */
package corpus.leaks;

import java.util.ArrayList;
import java.util.List;

public class LoggingLeak implements Runnable {
    static final List<String> SEEN = new ArrayList<>();
    private int calls;

    @Override
    public void run() {
        calls++;
        System.out.println("INFO handled request " + calls + " {\"not\": \"the report\"}");
        SEEN.add("request-" + calls); // GROWS
        System.err.println("DEBUG request " + calls);
    }
}
