/*
 * WeakMapClean: a WeakHashMap<Object, Payload> gets a fresh key object every loop that nothing
 * else keeps; the values (corpus.app.Payload) do not reference their keys, so every key becomes
 * unreachable when the loop ends and its entry is collected.
 *
 * Expected:      CLEAN (not reported)
 * Watched field: STATIC_FIELD corpus.clean.WeakMapClean.attachments -> java.util.WeakHashMap
 *                (declared Map). After a GC the keys are cleared at once, but WeakHashMap only
 *                drops a stale entry (and its value) on its next access (expungeStaleEntries,
 *                run by put/get/size). So a live dump, taken right after the GC, still shows the
 *                entries put since the previous GC: about loops-per-dump entries (2 by default)
 *                whose key is null, each WeakHashMap$Entry holding its Payload (+ byte[128])
 *                strongly. That number does not grow.
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
