/*
 * CaffeineWeakKeysClean: the twin of CaffeineWeakKeysLeak whose value keeps only the session's
 * id, not the session: once the loop drops its Session, the next GC clears the weak key, and
 * Caffeine's next maintenance (asynchronous, on ForkJoinPool.commonPool(): a put schedules it)
 * drains the reference queue and removes the entry.
 *
 * Expected:      CLEAN (not reported)
 * Library:       com.github.ben-manes.caffeine:caffeine 3.3.1
 * Watched field: INSTANCE_FIELD com.github.benmanes.caffeine.cache.BoundedLocalCache.data
 *                  -> java.util.concurrent.ConcurrentHashMap, through CaffeineWeakKeysClean
 *                .states (declared Cache) -> BoundedLocalCache$BoundedLocalManualCache -> WS
 * Growth:        0 net, but like clean.WeakMapClean only with evenly spaced dumps: an entry
 *                stays in the map (FS, its cleared References$WeakKeyReference,
 *                ConcurrentHashMap$Node, SessionState, id String + byte[]: 6 objects) from its
 *                loop until the first maintenance after the GC that clears its key, so a dump
 *                sees about one entry per loop since the previous GC (2 with dumps 2 loops
 *                apart); a schedule whose gaps widen sees it grow
 * Measured:      estimatedSize() after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515, right
 *                after the loop: 3, 2, 2, 4, 8, 16, 32, 64, 128, 256 in both driver runs (the
 *                driver's GCs are at the checkpoints, so: loops since the last one); after that
 *                GC, 50 ms and cleanUp(): 0 at every checkpoint (23 objects reachable, 22 at
 *                loop 3 in one run). An earlier driver, without the 50 ms, once saw 32 left at
 *                loop 67: the Reference Handler had not yet enqueued the cleared keys
 * heapgrowth:    at 2f1f225 (default schedule): not reported in 15 of 15 runs ("no growing
 *                objects after 11 loops in 5 snapshots", once after 9 loops in 4)
 */
package corpus.libs;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

public class CaffeineWeakKeysClean implements Runnable {
    /** A user's session; weak keys compare by identity. */
    static final class Session {
        final String id;

        Session(String id) {
            this.id = id;
        }
    }

    /** What the application remembers about a session: its id only. */
    record SessionState(String sessionId, int requests) {}

    private final Cache<Session, SessionState> states = Caffeine.newBuilder().weakKeys().build();

    private int loop;

    @Override
    public void run() {
        loop++;
        Session session = new Session("session-" + loop);
        states.put(session, new SessionState(session.id, loop));
        states.getIfPresent(session);
    }
}
