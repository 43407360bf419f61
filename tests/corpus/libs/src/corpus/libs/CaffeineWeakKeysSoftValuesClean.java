/*
 * CaffeineWeakKeysSoftValuesClean: CaffeineWeakKeysClean with soft values as well
 * (Caffeine.newBuilder().weakKeys().softValues()): each loop's Session dies with the loop, the
 * collection clears the weak key, and Caffeine's maintenance (on ForkJoinPool.commonPool())
 * removes the entry; the soft value, which the collector keeps until memory runs short, goes
 * with it.
 *
 * Expected:      CLEAN (not reported)
 * Library:       com.github.ben-manes.caffeine:caffeine 3.3.1
 * Watched field: INSTANCE_FIELD com.github.benmanes.caffeine.cache.BoundedLocalCache.data
 *                  -> java.util.concurrent.ConcurrentHashMap (through ...ManualCache.cache -> WI)
 * Growth:        0 net: 3 or 4 entries with a cleared WeakKeyReference at every snapshot
 * Measured:      heapgrowth at 6a2d1c1: not reported (no growing objects after 31 loops in 4
 *                snapshots); the same since issue 29
 */
package corpus.libs;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

public class CaffeineWeakKeysSoftValuesClean implements Runnable {
    static final class Session {
        final String id;

        Session(String id) {
            this.id = id;
        }
    }

    record SessionState(String sessionId, int requests) {}

    private final Cache<Session, SessionState> states =
            Caffeine.newBuilder().weakKeys().softValues().build();

    private int loop;

    @Override
    public void run() {
        loop++;
        Session session = new Session("session-" + loop);
        states.put(session, new SessionState(session.id, loop));
        states.getIfPresent(session);
    }
}
