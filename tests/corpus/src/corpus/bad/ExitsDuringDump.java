/*
 * ExitsDuringDump: a thread it starts watches for heapgrowth's heap dump file and calls
 * Runtime.halt(0) as soon as the file exists, so the JVM ends while a dump is being written
 * (the halt waits for the dump's safepoint to end: the whole dump is then on disk). halt, not
 * System.exit: exit runs the shutdown hooks first, by when heapgrowth has read and deleted
 * the dump.
 *
 * Expected: ERROR (exit status 2), naming the scenario, "during the heap dump after loop 3" or
 * (when heapgrowth read the dump faster than the JVM halted) "during loops 4 to 7"
 * (ExitsDuringDump.java:51 halts); the dump is deleted either way.
 */
package corpus.bad;

import java.io.File;

public class ExitsDuringDump implements Runnable {
    private final Thread watcher;
    /** 64 MiB: the dump takes a while to write and read, so the halt often lands meanwhile. */
    private final byte[][] ballast = new byte[64][1 << 20];

    public ExitsDuringDump() {
        watcher = new Thread(ExitsDuringDump::watch, "dump-watcher");
        watcher.setDaemon(true);
        watcher.start();
    }

    @Override
    public void run() {
        // Nothing: the watcher does the harm.
    }

    private static void watch() {
        // heapgrowth makes its directories under $TMPDIR, which java.io.tmpdir does not follow.
        String tmpdir = System.getenv("TMPDIR");
        File tmp = new File(tmpdir != null ? tmpdir : System.getProperty("java.io.tmpdir"));
        while (true) {
            File[] dirs = tmp.listFiles((dir, name) -> name.startsWith("heapgrowth-dumps-"));
            if (dirs != null) {
                for (File dir : dirs) {
                    String[] dumps = dir.list((d, name) -> name.endsWith(".hprof"));
                    if (dumps != null && dumps.length > 0) {
                        exit();
                    }
                }
            }
            Thread.onSpinWait();
        }
    }

    private static void exit() {
        Runtime.getRuntime().halt(0); // THROWS
    }
}
