/*
 * WeakHashMapValueHoldsKeyLeak: the WeakHashMap pitfall its javadoc warns about. Each loop maps
 * a new request key to an Attachment that refers back to the key; the map holds its values
 * strongly, so every key stays strongly reachable through its own value, is never cleared, and
 * no entry ever goes.
 *
 * Expected:      LEAK
 * Growing node:  INSTANCE_FIELD corpus.leaks.WeakHashMapValueHoldsKeyLeak.attachments
 *                  -> java.util.WeakHashMap => WeakHashMapValueHoldsKeyLeak$Attachment
 * Growth:        +1 entry per loop (WeakHashMap$Entry, Attachment, RequestKey, byte[64])
 * Growing call:  corpus.leaks.WeakHashMapValueHoldsKeyLeak.run(WeakHashMapValueHoldsKeyLeak.java:38)
 * Shark:         reported
 */
package corpus.leaks;

import java.util.Map;
import java.util.WeakHashMap;

public class WeakHashMapValueHoldsKeyLeak implements Runnable {
    static final class RequestKey {
        private final int id;

        RequestKey(int id) {
            this.id = id;
        }
    }

    record Attachment(RequestKey request, byte[] body) {}

    private final Map<RequestKey, Attachment> attachments = new WeakHashMap<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        RequestKey key = new RequestKey(loop);
        attachments.put(key, new Attachment(key, new byte[64])); // GROWS
    }
}
