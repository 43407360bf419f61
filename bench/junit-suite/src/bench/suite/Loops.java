package bench.suite;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The time the suite's test bodies take, summed over every loop of every test: the "loops"
 * share of scripts/bench-junit-suite.sh's breakdown. Each body starts with
 * {@code long started = System.nanoTime();} and ends with {@link #done}. At the JVM's exit the
 * totals go to the file named by the system property {@code bench.loopsFile}, as
 * {@code loops=N body_ms=M}. Two longs, so the counting itself does not grow the heap.
 */
public final class Loops {
    private static final AtomicLong LOOPS = new AtomicLong();
    private static final AtomicLong NANOS = new AtomicLong();

    static {
        String file = System.getProperty("bench.loopsFile");
        if (file != null) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                String line = "loops=" + LOOPS.get() + " body_ms=" + NANOS.get() / 1_000_000 + "\n";
                try {
                    Files.writeString(Path.of(file), line, StandardCharsets.UTF_8);
                } catch (IOException e) {
                    System.err.println("bench.loopsFile: " + e);
                }
            }, "bench-loops"));
        }
    }

    private Loops() {}

    /** Ends one loop's body that started at {@code started} (System.nanoTime). */
    public static void done(long started) {
        NANOS.addAndGet(System.nanoTime() - started);
        LOOPS.incrementAndGet();
    }
}
