/*
 * CaffeineExpiringClean: the clean twin of CaffeineExpiringLeak. A Caffeine session cache whose
 * entries expire 100 ms after they were written, with Caffeine's system scheduler: a new session
 * id every loop. The cache has no bound but time: an entry is removed by the maintenance that
 * runs after later writes or, when no write comes, by the scheduler's timer thread
 * (CompletableFuture's "CompletableFutureDelayScheduler", which hands maintenance to the common
 * ForkJoinPool) at the next expiry. Between times that thread sleeps (TIMED_WAITING); a snapshot
 * taken right after a burst of loops finds every entry written in the last 100 ms.
 *
 * Expected:      CLEAN (not reported)
 * Library:       com.github.ben-manes.caffeine:caffeine 3.3.1
 * Watched field: INSTANCE_FIELD com.github.benmanes.caffeine.cache.BoundedLocalCache.data
 *                  -> java.util.concurrent.ConcurrentHashMap => Caffeine's node for write
 *                expiry, reached through CaffeineExpiringClean.sessions (declared Cache); the
 *                nodes are also linked in the write-order deque, and held by the write buffer
 *                until maintenance drains it
 * Growth:        0 net: the entries written in the last 100 ms (node, ConcurrentHashMap$Node,
 *                id String + byte[], Session), removed once expired
 * Drained by:    Caffeine's maintenance on the common ForkJoinPool, scheduled by the JDK's
 *                CompletableFutureDelayScheduler thread (Scheduler.systemScheduler()) at the
 *                next expiry, and after writes
 * Measured:      see docs/bench.md, "Issue 35" (10 runs under load, heapgrowth at main c613325)
 */
package corpus.libs;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Scheduler;
import java.time.Duration;

public class CaffeineExpiringClean implements Runnable {
    public static final Duration EXPIRY = Duration.ofMillis(100);

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
        sessions.put(id, new Session(id, loop));
        sessions.getIfPresent("session-" + (loop - 1));
    }
}
