/*
 * GuavaCacheWeakKeysClean: a Guava cache with weak keys (CacheBuilder.weakKeys()) maps each
 * request's Session to its state, and the loop drops the session. The value keeps only the
 * session's id, so the next collection clears the entry's key (LocalCache$WeakEntry is a
 * WeakReference to it); the cache drains its key reference queue on writes, and on reads every
 * 64th one.
 *
 * Expected:      CLEAN (not reported)
 * Library:       com.google.guava:guava 33.8.0-jre
 * Watched node:  ... LocalCache$Segment.table -> AtomicReferenceArray
 *                  -> INSTANCE_FIELD AtomicReferenceArray.array -> Object[] => LocalCache$WeakEntry
 * Growth:        0 net: cleared entries (and their values) that wait for the next drain, 3 to 11
 *                per segment table at the snapshots
 * Measured:      heapgrowth at 6a2d1c1 (before issue 29): FALSE POSITIVE, "1 growing node after
 *                1000 loops in 7 snapshots": AtomicReferenceArray.array, objects (346, +118),
 *                all LocalCache$WeakEntry. Since: not reported, after 63 loops in 5 snapshots
 */
package corpus.libs;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;

public class GuavaCacheWeakKeysClean implements Runnable {
    static final class Session {
        final String id;

        Session(String id) {
            this.id = id;
        }
    }

    record SessionState(String sessionId, int requests) {}

    private final Cache<Session, SessionState> states = CacheBuilder.newBuilder().weakKeys().build();

    private int loop;

    @Override
    public void run() {
        loop++;
        Session session = new Session("session-" + loop);
        states.put(session, new SessionState(session.id, loop));
        states.getIfPresent(session);
    }
}
