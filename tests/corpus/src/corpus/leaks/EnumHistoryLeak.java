/*
 * EnumHistoryLeak: an order's status history. Every loop moves the order to its next status and
 * appends the status to a history list that is never trimmed. The elements are enum constants:
 * the list gains references, never new objects.
 *
 * Expected:      LEAK
 * Growing field: STATIC_FIELD corpus.leaks.EnumHistoryLeak.history -> java.util.ArrayList
 *                (declared List, not final) => corpus.app.Status (4 constants, each reachable
 *                from STATIC_FIELD Status.PENDING/PAID/SHIPPED/DELIVERED and Status.$VALUES)
 * Growth:        +1 reference per loop (PAID, SHIPPED, DELIVERED, PENDING, PAID, ... in turn),
 *                0 new objects but ArrayList.elementData when it fills (10, 15, 22, 33, ...)
 * Growing call:  corpus.leaks.EnumHistoryLeak.run(EnumHistoryLeak.java:38)
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7, 11, 19, 35, 67, 131,
 *                259, 515 references (3 distinct constants at loop 3, 4 from loop 4); elementData
 *                10, 10, 10, 15, 22, 49, 73, 163, 366, 549; JVM live objects +0 per loop after loop
 *                7
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: not
 *                reported: "no growing objects after 7 loops in 3 snapshots", exit 0 (MISSED)
 * Shark:         not run; by its rule BLIND SPOT: no child gains objects
 */
package corpus.leaks;

import corpus.app.Status;
import java.util.ArrayList;
import java.util.List;

public class EnumHistoryLeak implements Runnable {
    private static final Status[] STATUSES = Status.values();

    private static List<Status> history = new ArrayList<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        Status status = STATUSES[loop % STATUSES.length];
        history.add(status); // GROWS
    }
}
