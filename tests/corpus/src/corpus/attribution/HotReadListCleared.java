/*
 * HotReadListCleared: clean twin of HotReadListLeak. The same hot loop over the list's size, but
 * the list is cleared at the end of every loop.
 *
 * Expected:      CLEAN
 * Growing node:  none: STATIC_FIELD HotReadListCleared.audit -> ArrayList, empty between loops
 * Growth:        0
 * Measured:      heapgrowth on branch order (debug build), default schedule, JSON, 3 runs: exit
 *                0 in 3 of 3, nothing reported
 */
package corpus.attribution;

import corpus.app.Item;
import java.util.ArrayList;
import java.util.List;

public class HotReadListCleared implements Runnable {
    private static List<Item> audit = new ArrayList<>();

    private int loop;

    private long checksum;

    @Override
    public void run() {
        loop++;
        audit.add(new Item("audit-" + loop, loop));
        for (int i = 0; i < 1_000_000; i++) {
            checksum += audit.size();
        }
        audit.clear();
    }
}
