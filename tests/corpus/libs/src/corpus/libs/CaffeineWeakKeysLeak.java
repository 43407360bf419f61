/*
 * CaffeineWeakKeysLeak: a Caffeine cache with weakKeys() maps each Session to its state, and
 * the session is dropped after the loop; but the state (the value, held strongly by the cache)
 * points back at its session, so the weak key stays strongly reachable and no entry is ever
 * collected. The classic pitfall of a weak-keyed map (WeakHashMap's javadoc warns about it).
 *
 * Expected:      LEAK
 * Library:       com.github.ben-manes.caffeine:caffeine 3.3.1
 * Growing field: INSTANCE_FIELD com.github.benmanes.caffeine.cache.BoundedLocalCache.data
 *                  -> java.util.concurrent.ConcurrentHashMap, reached through
 *                CaffeineWeakKeysLeak.states (declared Cache)
 *                  -> BoundedLocalCache$BoundedLocalManualCache, field cache -> WS
 * Growth:        +1 entry per loop, 7 objects: ConcurrentHashMap$Node, its key
 *                References$WeakKeyReference (also FS.key), the node FS, FS.value
 *                -> CaffeineWeakKeysLeak$SessionState, whose session field keeps the
 *                CaffeineWeakKeysLeak$Session (the weak key's referent) strongly reachable, and
 *                the session's id String + byte[]
 * Growing call:  corpus.libs.CaffeineWeakKeysLeak.run(CaffeineWeakKeysLeak.java:58)
 *                  (into Cache.put -> BoundedLocalCache.put; maintenance on the commonPool)
 * Measured:      estimatedSize() after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515, before and
 *                after a GC + cleanUp(): 3, 5, 7, 11, 19, 35, 67, 131, 259, 515; objects
 *                reachable from the scenario: 44, 58, 72, 100, 156, 268, 492, 940, 1836, 3628
 *                (+7 per loop); the same in both driver runs, but for 43 at loop 3 in one
 * heapgrowth:    at 2f1f225 (default schedule): FLAKY, reported in 16 of 23 runs (1 of the
 *                first 3) as BoundedLocalCache.data -> ConcurrentHashMap, children [key]
 *                References$WeakKeyReference and [x] FS, 23 objects (6 new) after 23 loops; the
 *                others say "no growing objects" after 9 or 23 loops, once "Leveled off ...:
 *                BoundedLocalCache.data". In one reported run the node's children per snapshot
 *                were 6, 0, 14, 18, ...: in one dump the cache was reached through another
 *                path (a commonPool worker running maintenance holds it on its stack)
 */
package corpus.libs;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

public class CaffeineWeakKeysLeak implements Runnable {
    /** A user's session; weak keys compare by identity. */
    static final class Session {
        final String id;

        Session(String id) {
            this.id = id;
        }
    }

    /** What the application remembers about a session: the bug is the back reference. */
    record SessionState(Session session, int requests) {}

    private final Cache<Session, SessionState> states = Caffeine.newBuilder().weakKeys().build();

    private int loop;

    @Override
    public void run() {
        loop++;
        Session session = new Session("session-" + loop);
        states.put(session, new SessionState(session, loop)); // GROWS
        states.getIfPresent(session);
        // The request ends here and drops its session; the cache was meant to forget it.
    }
}
