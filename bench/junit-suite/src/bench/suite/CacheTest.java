package bench.suite;

import dev.heapgrowth.junit.HeapGrowthTest;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/** Four clean caches and one that keeps every key it was asked for (a leak). */
class CacheTest {
    /** A bounded LRU cache. */
    static final class Lru<K, V> extends LinkedHashMap<K, V> {
        private static final long serialVersionUID = 1L;
        private final int capacity;

        Lru(int capacity) {
            super(16, 0.75f, true);
            this.capacity = capacity;
        }

        @Override
        protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
            return size() > capacity;
        }
    }

    private static final Map<String, String> RENDERED = new HashMap<>();
    private final Lru<Integer, String> lru = new Lru<>(4);
    private final Map<String, Integer> fixedKeys = new HashMap<>();
    private int loop;

    @HeapGrowthTest
    void lruStaysBounded() {
        long started = System.nanoTime();
        lru.put(loop++, "value");
        Loops.done(started);
    }

    @HeapGrowthTest
    void fixedKeysAreOverwritten() {
        long started = System.nanoTime();
        fixedKeys.put("key-" + (loop++ % 4), loop);
        Loops.done(started);
    }

    @HeapGrowthTest
    void computedAndForgotten() {
        long started = System.nanoTime();
        Map<Integer, Integer> squares = new HashMap<>();
        for (int i = 0; i < 50; i++) {
            squares.computeIfAbsent(i, k -> k * k);
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void rendersEveryPageOnce() {
        long started = System.nanoTime();
        RENDERED.put("/page/" + loop++, "<html></html>"); // GROWS
        Loops.done(started);
    }

    @HeapGrowthTest
    void clearsAfterUse() {
        long started = System.nanoTime();
        Map<String, String> scratch = new HashMap<>();
        scratch.put("a", "b");
        scratch.clear();
        Loops.done(started);
    }
}
