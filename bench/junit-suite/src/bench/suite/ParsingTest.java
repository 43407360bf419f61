package bench.suite;

import dev.heapgrowth.junit.HeapGrowthTest;
import java.time.Duration;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/** Clean: parsing whose results are dropped. */
class ParsingTest {
    private static final DateTimeFormatter ISO = DateTimeFormatter.ISO_LOCAL_DATE;

    @HeapGrowthTest
    void parsesCsv() {
        long started = System.nanoTime();
        String csv = "id,name,amount\n1,ann,10.5\n2,bob,7.25\n3,cyd,3.0\n";
        double total = 0;
        for (String line : csv.split("\n")) {
            String[] fields = line.split(",");
            if (!fields[0].equals("id")) {
                total += Double.parseDouble(fields[2]);
            }
        }
        if (total != 20.75) {
            throw new AssertionError(total);
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void parsesNumbers() {
        long started = System.nanoTime();
        long sum = 0;
        for (int i = 0; i < 100; i++) {
            sum += Long.parseLong(Integer.toString(i * 31));
        }
        if (sum != 153_450) {
            throw new AssertionError(sum);
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void parsesDates() {
        long started = System.nanoTime();
        LocalDate date = LocalDate.parse("2026-12-01", ISO).plusDays(30);
        if (date.getMonthValue() != 12) {
            throw new AssertionError(date);
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void tokenizesAnExpression() {
        long started = System.nanoTime();
        String expression = "(1 + 23) * 456 - 7 / 89";
        List<String> tokens = new ArrayList<>();
        StringBuilder number = new StringBuilder();
        for (char c : expression.toCharArray()) {
            if (Character.isDigit(c)) {
                number.append(c);
            } else {
                if (number.length() > 0) {
                    tokens.add(number.toString());
                    number.setLength(0);
                }
                if (c != ' ') {
                    tokens.add(String.valueOf(c));
                }
            }
        }
        if (number.length() > 0) {
            tokens.add(number.toString());
        }
        if (tokens.size() != 11) {
            throw new AssertionError(tokens);
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void parsesDurations() {
        long started = System.nanoTime();
        Duration total = Duration.ZERO;
        for (String text : new String[] {"PT1H", "PT30M", "PT45S"}) {
            total = total.plus(Duration.parse(text));
        }
        if (total.getSeconds() != 5_445) {
            throw new AssertionError(total);
        }
        Loops.done(started);
    }
}
