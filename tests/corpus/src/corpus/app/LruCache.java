package corpus.app;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A least-recently-used cache holding at most {@code maxEntries} entries.
 *
 * <p>The table is sized so that it never resizes: it holds {@code maxEntries + 1} entries for a
 * moment (LinkedHashMap inserts before it asks removeEldestEntry), so the capacity is chosen
 * for that many under the 0.75 load factor. Once full, the cache's object count is constant.
 */
public class LruCache<K, V> extends LinkedHashMap<K, V> {
    private static final long serialVersionUID = 1L;

    private final int maxEntries;

    public LruCache(int maxEntries) {
        super((int) Math.ceil((maxEntries + 1) / 0.75), 0.75f, true);
        this.maxEntries = maxEntries;
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        return size() > maxEntries;
    }

    public int maxEntries() {
        return maxEntries;
    }
}
