package bench.suite;

import dev.heapgrowth.junit.HeapGrowthTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Clean: string work whose results are dropped after each loop. */
class TextTest {
    private static final Pattern EMAIL = Pattern.compile("([a-z0-9.]+)@([a-z0-9.]+)");
    private int loop;

    @HeapGrowthTest
    void buildsAndSplitsLines() {
        long started = System.nanoTime();
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 50; i++) {
            text.append("line ").append(i).append(',').append(loop++).append('\n');
        }
        String[] lines = text.toString().split("\n");
        if (lines.length != 50) {
            throw new AssertionError(lines.length);
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void findsEmailAddresses() {
        long started = System.nanoTime();
        Matcher matcher = EMAIL.matcher("write to ann@example.com or bob.smith@mail.example.org today");
        List<String> domains = new ArrayList<>();
        while (matcher.find()) {
            domains.add(matcher.group(2));
        }
        if (domains.size() != 2) {
            throw new AssertionError(domains);
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void formatsPrices() {
        long started = System.nanoTime();
        String total = "";
        for (int cents = 100; cents < 2_000; cents += 97) {
            total = String.format(Locale.ROOT, "%d.%02d EUR", cents / 100, cents % 100);
        }
        if (!total.endsWith("EUR")) {
            throw new AssertionError(total);
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void joinsAndUpperCases() {
        long started = System.nanoTime();
        List<String> words = List.of("alpha", "beta", "gamma", "delta", "epsilon");
        String joined = String.join("-", words).toUpperCase(Locale.ROOT);
        if (joined.length() != 30) {
            throw new AssertionError(joined);
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void reversesWords() {
        long started = System.nanoTime();
        String sentence = "the quick brown fox jumps over the lazy dog";
        StringBuilder reversed = new StringBuilder();
        for (String word : sentence.split(" ")) {
            reversed.insert(0, word + " ");
        }
        if (!reversed.toString().startsWith("dog")) {
            throw new AssertionError(reversed);
        }
        Loops.done(started);
    }
}
