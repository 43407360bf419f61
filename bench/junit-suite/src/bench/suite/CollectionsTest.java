package bench.suite;

import dev.heapgrowth.junit.HeapGrowthTest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** Clean: collections built and dropped, or kept at a fixed size. */
class CollectionsTest {
    private final Deque<Integer> window = new ArrayDeque<>();
    private int loop;

    @HeapGrowthTest
    void sortsAList() {
        long started = System.nanoTime();
        List<Integer> numbers = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            numbers.add((i * 7919) % 1_000);
        }
        Collections.sort(numbers);
        if (numbers.get(0) > numbers.get(199)) {
            throw new AssertionError();
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void countsWords() {
        long started = System.nanoTime();
        Map<String, Integer> counts = new HashMap<>();
        for (String word : "a rose is a rose is a rose".split(" ")) {
            counts.merge(word, 1, Integer::sum);
        }
        if (counts.get("rose") != 3) {
            throw new AssertionError(counts);
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void keepsASlidingWindow() {
        long started = System.nanoTime();
        window.addLast(loop++);
        while (window.size() > 4) {
            window.removeFirst();
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void groupsWithStreams() {
        long started = System.nanoTime();
        Map<Integer, List<Integer>> byRemainder = IntStream.range(0, 100).boxed()
                .collect(Collectors.groupingBy(i -> i % 5));
        if (byRemainder.size() != 5) {
            throw new AssertionError(byRemainder.keySet());
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void navigatesATreeMap() {
        long started = System.nanoTime();
        TreeMap<String, Integer> index = new TreeMap<>();
        for (int i = 0; i < 64; i++) {
            index.put("key-" + i, i);
        }
        if (!index.firstKey().equals("key-0")) {
            throw new AssertionError(index.firstKey());
        }
        Loops.done(started);
    }
}
