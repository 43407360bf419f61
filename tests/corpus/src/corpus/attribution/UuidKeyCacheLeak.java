/*
 * UuidKeyCacheLeak: a per-user session cache, a static final Map holding a ConcurrentHashMap,
 * keyed by a UUID string made on the line before the put; nothing ever evicts. Both the key
 * (made on one line) and the session (made on the put's line) end up under the map, so
 * allocation sampling records two stacks once a loop each: the put's line is the one to fix,
 * and must come first every run (issue 32: the key's line came first, or changed places).
 * ConcurrentHashMap links and counts its nodes with Unsafe CAS (no field write to watch) and
 * the field is final (no proxy): allocation sampling is the recorder. The UUID is built from
 * the loop number, so the run is deterministic.
 *
 * Expected:      LEAK
 * Growing node:  STATIC_FIELD corpus.attribution.UuidKeyCacheLeak.SESSIONS
 *                  -> java.util.concurrent.ConcurrentHashMap => corpus.app.Session (key: String)
 * Growth:        +1 entry per loop (ConcurrentHashMap$Node, Session, the key String + byte[],
 *                the user String + byte[]; the table is replaced when it resizes)
 * Growing call:  corpus.attribution.UuidKeyCacheLeak.run(UuidKeyCacheLeak.java:47)
 * Measured:      heapgrowth on branch order (issue 32's order, debug build), default schedule,
 *                JSON, 3 runs: exit 1 in 3 of 3; node STATIC_FIELD UuidKeyCacheLeak.SESSIONS ->
 *                ConcurrentHashMap, children at loops 3, 7, 15, 31, 124, 496, 1000: 6, 14, 30, 62,
 *                248, 992, 2000 ([key] String, [x] Session). Attribution (all 3): allocated at,
 *                3 stacks of 4 objects in the same order: UuidKeyCacheLeak.java:47 (the Session),
 *                :47 (the user String, through StringConcatHelper), :46 (the key, through
 *                UUID.toString): the put's line first (before issue 32, by frame text, the
 *                key's line could come first). With kept by (issue 32, main at 201d73b, debug
 *                build, 4 runs): one stack, `4 call(s) to put()` at :47, made at :46 (the key),
 *                in 4 of 4. With made-at ranking (issue 32, branch cls2, debug build, 10 runs
 *                on JDK 17, 1 on 25): one stack, `4 call(s) to put()` at :47 and no made at, in
 *                10 of 10: the map's value (a [x] child) ranks before its key ([key]), and the
 *                Session is made on the put's own line, so there is no other line to add
 */
package corpus.attribution;

import corpus.app.Session;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

public class UuidKeyCacheLeak implements Runnable {
    private static final Map<String, Session> SESSIONS = new ConcurrentHashMap<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        String key = new UUID(loop, loop).toString(); // ALLOCATED
        SESSIONS.put(key, new Session("acme", "user-" + loop, key)); // GROWS
        // Bug: a session is never evicted when its user logs out.
    }
}
