/*
 * LoggingClean: the clean twin of LoggingLeak: logs every loop to System.out and System.err,
 * keeps only the last request.
 *
 * Expected: CLEAN; with --format json, stdout holds the JSON report alone.
 */
package corpus.clean;

public class LoggingClean implements Runnable {
    static String last;
    private int calls;

    @Override
    public void run() {
        calls++;
        System.out.println("INFO handled request " + calls + " {\"not\": \"the report\"}");
        last = "request-" + calls;
        System.err.println("DEBUG request " + calls);
    }
}
