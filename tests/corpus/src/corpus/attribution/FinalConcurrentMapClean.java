/*
 * FinalConcurrentMapClean: clean twin of FinalConcurrentMapLeak. The same static final
 * ConcurrentHashMap of sessions; each session is removed when it ends (in the same loop).
 *
 * Expected:      CLEAN
 * Growing node:  none: STATIC_FIELD FinalConcurrentMapClean.SESSIONS -> ConcurrentHashMap,
 *                empty between loops
 * Growth:        0
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 0 in 3 of 3, nothing reported, nothing leveled off (31 loops, 4
 *                snapshots)
 */
package corpus.attribution;

import corpus.app.Item;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

public class FinalConcurrentMapClean implements Runnable {
    private static final Map<String, Item> SESSIONS = new ConcurrentHashMap<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        String id = "session-" + loop;
        SESSIONS.put(id, new Item(id, loop));
        SESSIONS.remove(id);
    }
}
