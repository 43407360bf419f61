/*
 * WeakHashMapUniqueKeys: a WeakHashMap keyed by a new request key object every loop, whose
 * value (an Attachment) keeps only the request's id: once the loop drops the key, the next
 * collection clears it, and the map expunges the stale entry, and its value, on its next
 * access. The twin of leaks.WeakHashMapValueHoldsKeyLeak, and, unlike clean.WeakMapClean, held
 * by an instance field.
 *
 * Expected:      CLEAN (not reported)
 * Watched node:  INSTANCE_FIELD corpus.clean.WeakHashMapUniqueKeys.attachments -> WeakHashMap:
 *                3 stale entries (cleared WeakHashMap$Entry, Attachment, byte[64]) at every
 *                snapshot, those of the loops since the collection before it
 * Growth:        0 net
 * Shark:         not reported (the referent is a weak reference; values stay bounded)
 */
package corpus.clean;

import java.util.Map;
import java.util.WeakHashMap;

public class WeakHashMapUniqueKeys implements Runnable {
    static final class RequestKey {
        private final int id;

        RequestKey(int id) {
            this.id = id;
        }
    }

    record Attachment(int requestId, byte[] body) {}

    private final Map<RequestKey, Attachment> attachments = new WeakHashMap<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        RequestKey key = new RequestKey(loop);
        attachments.put(key, new Attachment(loop, new byte[64]));
    }
}
