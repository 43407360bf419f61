/*
 * UuidKeyCacheEvicted: clean twin of UuidKeyCacheLeak. The same static final map of sessions
 * keyed by a UUID string, but the session of eight loops ago is evicted on every loop, so the
 * map holds eight entries from loop 8 on.
 *
 * Expected:      CLEAN
 * Growing node:  none: STATIC_FIELD UuidKeyCacheEvicted.SESSIONS -> ConcurrentHashMap, 8 entries
 *                between loops from loop 8 on
 * Growth:        0 (8 entries from loop 8 on)
 * Measured:      heapgrowth on branch order (debug build), default schedule, JSON, 3 runs: exit
 *                0 in 3 of 3, nothing reported (31 loops, 4 snapshots)
 */
package corpus.attribution;

import corpus.app.Session;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

public class UuidKeyCacheEvicted implements Runnable {
    private static final Map<String, Session> SESSIONS = new ConcurrentHashMap<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        String key = new UUID(loop, loop).toString();
        SESSIONS.put(key, new Session("acme", "user-" + loop, key));
        if (loop > 8) {
            SESSIONS.remove(new UUID(loop - 8, loop - 8).toString());
        }
    }
}
