/*
 * StringGrowthLeak: an in-memory log that is appended to forever, kept two ways: a static
 * StringBuilder that appends one 64-character line per loop, and a static String that is
 * concatenated with the same line (a new String replaces the old one every loop). The number
 * of objects never changes; only their size does.
 *
 * Expected:      LEAK (growth in bytes, not in objects)
 * Growing fields:
 *   STATIC_FIELD corpus.leaks.StringGrowthLeak.history -> java.lang.String
 *     its byte[] (INSTANCE_FIELD String.value) is exactly 64 bytes longer after every loop
 *     (Latin-1 string, length 64 * loop); 2 objects, always.
 *   STATIC_FIELD corpus.leaks.StringGrowthLeak.log -> java.lang.StringBuilder
 *     its length grows 64 chars per loop, but its byte[] (INSTANCE_FIELD
 *     AbstractStringBuilder.value) grows by capacity steps (JDK 17: new = old + max(needed,
 *     old + 2)), from 16 to 64, 130, 262, 526, 1054, 2110, 4222 bytes, replaced at loops
 *     1, 2, 3, 5, 9, 17, 33: between two dumps the array often keeps its size.
 * Growth:        +64 bytes per loop (String); 0 objects per loop
 * Growing call:  corpus.leaks.StringGrowthLeak.run(StringGrowthLeak.java:37) (StringBuilder.append)
 *                and StringGrowthLeak.java:38 (history = history + line, a static field write)
 * Shark:         BLIND SPOT: it counts objects, and no node gains objects
 */
package corpus.leaks;

public class StringGrowthLeak implements Runnable {
    /** Length of every line appended, newline included. */
    public static final int LINE_LENGTH = 64;

    private static StringBuilder log = new StringBuilder();
    private static String history = "";

    private int loop;

    @Override
    public void run() {
        loop++;
        String line = line(loop);
        log.append(line); // GROWS
        history = history + line; // GROWS
    }

    /** "loop 7: checkout completed" padded with dots to 63 characters, then a newline. */
    static String line(int loop) {
        StringBuilder line = new StringBuilder(LINE_LENGTH).append("loop ").append(loop)
                .append(": checkout completed");
        while (line.length() < LINE_LENGTH - 1) {
            line.append('.');
        }
        return line.append('\n').toString();
    }
}
