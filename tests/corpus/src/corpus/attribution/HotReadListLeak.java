/*
 * HotReadListLeak: a static list of audit entries gains one entry per loop and is never
 * trimmed, and every loop reads its size a million times (a hot loop over `size()`). With the
 * agent, the container watch on ArrayList.size also watches reads of it for the remove hint
 * (issue 32); a read event is posted for each of those million reads, so that watch switches
 * itself off after 200,000 events and the attribution says so in a caveat.
 *
 * Expected:      LEAK
 * Growing field: STATIC_FIELD corpus.attribution.HotReadListLeak.audit -> java.util.ArrayList
 * Growth:        +1 entry per loop (an Item: 3 objects)
 * Growing call:  corpus.attribution.HotReadListLeak.run(HotReadListLeak.java:32)
 * Measured:      heapgrowth on branch order (debug build), default schedule, JSON, 3 runs: exit 1
 *                in 3 of 3; calls to add(), 1 stack (4 calls) at the GROWS line, caveat
 *                "remove() probe cut short"
 */
package corpus.attribution;

import corpus.app.Item;
import java.util.ArrayList;
import java.util.List;

public class HotReadListLeak implements Runnable {
    private static List<Item> audit = new ArrayList<>();

    private int loop;

    private long checksum;

    @Override
    public void run() {
        loop++;
        audit.add(new Item("audit-" + loop, loop)); // GROWS
        for (int i = 0; i < 1_000_000; i++) {
            checksum += audit.size();
        }
    }
}
