/*
 * CaffeineExpiringLeak: a Caffeine session cache as in CaffeineExpiringClean, with the bug: the
 * entries expire an hour after they were written (meant: 100 ms), and every loop writes a new
 * session id, so within a run nothing expires and the cache keeps every session. The same system
 * scheduler and maintenance run beside it.
 *
 * Expected:      LEAK
 * Library:       com.github.ben-manes.caffeine:caffeine 3.3.1
 * Growing field: INSTANCE_FIELD com.github.benmanes.caffeine.cache.BoundedLocalCache.data
 *                  -> java.util.concurrent.ConcurrentHashMap, reached through
 *                CaffeineExpiringLeak.sessions (declared Cache)
 * Growth:        +1 entry per loop (node, ConcurrentHashMap$Node, id String + byte[], Session)
 * Growing call:  corpus.libs.CaffeineExpiringLeak.run(CaffeineExpiringLeak.java:43)
 *                  (into Cache.put -> BoundedLocalCache.put -> ConcurrentHashMap)
 * Drained by:    nothing within a run: maintenance runs after writes and at the scheduler's
 *                next expiry, an hour ahead
 * Measured:      see docs/bench.md, "Issue 35" (10 runs under load, heapgrowth at main c613325)
 */
package corpus.libs;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Scheduler;
import java.time.Duration;

public class CaffeineExpiringLeak implements Runnable {
    public static final Duration EXPIRY = Duration.ofHours(1);

    /** One client session (the cached value). */
    record Session(String id, int loop) {}

    private final Cache<String, Session> sessions = Caffeine.newBuilder()
            .expireAfterWrite(EXPIRY)
            .scheduler(Scheduler.systemScheduler())
            .build();

    private int loop;

    @Override
    public void run() {
        loop++;
        String id = "session-" + loop;
        sessions.put(id, new Session(id, loop)); // GROWS
        sessions.getIfPresent("session-" + (loop - 1));
    }
}
