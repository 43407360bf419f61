/*
 * GarbageChurn: every loop builds a 10,000-element list of new strings (about 30,000 objects),
 * sums their lengths into a long, and drops the list. Nothing survives the loop except the sum.
 *
 * Expected:      CLEAN (not reported)
 * Watched field: none: the only state is INSTANCE_FIELD corpus.clean.GarbageChurn.checksum
 *                (a long)
 * Shark:         not reported (a live dump after GC holds none of the temporary objects)
 */
package corpus.clean;

import java.util.ArrayList;
import java.util.List;

public class GarbageChurn implements Runnable {
    public static final int TEMPORARY_STRINGS = 10_000;

    private long checksum;

    @Override
    public void run() {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < TEMPORARY_STRINGS; i++) {
            lines.add("line-" + i + "-" + checksum);
        }
        long sum = 0;
        for (String line : lines) {
            sum += line.length();
        }
        checksum += sum;
    }

    public long checksum() {
        return checksum;
    }
}
