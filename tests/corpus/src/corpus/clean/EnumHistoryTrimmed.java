/*
 * EnumHistoryTrimmed: the clean twin of leaks.EnumHistoryLeak. The status history keeps only the
 * last 10 statuses: once it holds more, the oldest is removed.
 *
 * Expected:      CLEAN (not reported)
 * Watched field: STATIC_FIELD corpus.clean.EnumHistoryTrimmed.history -> java.util.ArrayList
 *                (declared List) => corpus.app.Status: 1, 2, ... 10 references after loops
 *                1..10, then 10 forever; elementData: capacity 10 until loop 10, 15 from loop 11
 *                (the 11th add grows it before the remove), never replaced after that
 * Bound reached: loop 10
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7, 10, 10, 10, 10, 10,
 *                10, 10 references; after every loop 1..20: 1, 2, ... 10, then 10
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: not
 *                reported (7 loops, 3 snapshots), exit 0
 * Shark:         not reported (+2 references per dump until loop 9, then 0)
 */
package corpus.clean;

import corpus.app.Status;
import java.util.ArrayList;
import java.util.List;

public class EnumHistoryTrimmed implements Runnable {
    public static final int KEEP = 10;

    private static final Status[] STATUSES = Status.values();

    private static List<Status> history = new ArrayList<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        Status status = STATUSES[loop % STATUSES.length];
        history.add(status);
        if (history.size() > KEEP) {
            history.remove(0);
        }
    }
}
