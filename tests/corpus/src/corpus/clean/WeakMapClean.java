/*
 * WeakMapClean: a WeakHashMap<Object, Payload> gets a fresh key object every loop that nothing
 * else keeps; the values (corpus.app.Payload) do not reference their keys, so every key becomes
 * unreachable when the loop ends and its entry is collected.
 *
 * Expected:      CLEAN (not reported)
 * Watched field: STATIC_FIELD corpus.clean.WeakMapClean.attachments -> java.util.WeakHashMap
 *                (declared Map). A GC clears the keys at once, but WeakHashMap drops a stale
 *                entry (and its value) only on its next access (expungeStaleEntries, run by
 *                put/get/size). So a live dump, taken right after its GC, still shows one stale
 *                entry per loop run since the previous GC: each WeakHashMap$Entry has a cleared
 *                key and holds its Payload (+ byte[128]) strongly. With dumps every 2 loops that
 *                is 2 entries in every dump: no growth. Measured with a GC after loops 1, 2, 3,
 *                5, 7, ... 21: 1, 1, 1, 2, 2, ... 2 entries; after 9 loops without a GC, 9.
 *                A schedule that widens the gap between dumps will see this number rise.
 * Shark:         not reported (the referent is a weak reference; values stay bounded)
 */
package corpus.clean;

import corpus.app.Payload;
import java.util.Map;
import java.util.WeakHashMap;

public class WeakMapClean implements Runnable {
    /** A request identity: equal only to itself. */
    static final class RequestKey {
        private final int id;

        RequestKey(int id) {
            this.id = id;
        }

        @Override
        public String toString() {
            return "request-" + id;
        }
    }

    private static Map<Object, Payload> attachments = new WeakHashMap<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        RequestKey key = new RequestKey(loop);
        attachments.put(key, new Payload(loop));
        // The key goes out of scope here: only the map's weak reference points to it.
    }
}
