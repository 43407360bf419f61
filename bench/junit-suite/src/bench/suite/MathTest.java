package bench.suite;

import dev.heapgrowth.junit.HeapGrowthTest;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.SplittableRandom;

/** Clean: arithmetic on fresh objects. */
class MathTest {
    private final SplittableRandom random = new SplittableRandom(42);

    @HeapGrowthTest
    void addsMoney() {
        long started = System.nanoTime();
        BigDecimal total = BigDecimal.ZERO;
        for (int i = 0; i < 50; i++) {
            total = total.add(new BigDecimal("19.99"));
        }
        if (total.compareTo(new BigDecimal("999.50")) != 0) {
            throw new AssertionError(total);
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void computesAFactorial() {
        long started = System.nanoTime();
        BigInteger factorial = BigInteger.ONE;
        for (int i = 2; i <= 40; i++) {
            factorial = factorial.multiply(BigInteger.valueOf(i));
        }
        if (factorial.bitLength() < 100) {
            throw new AssertionError(factorial);
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void dividesWithRounding() {
        long started = System.nanoTime();
        BigDecimal share = new BigDecimal("100").divide(new BigDecimal("3"), 4, RoundingMode.HALF_EVEN);
        if (share.scale() != 4) {
            throw new AssertionError(share);
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void averagesRandomNumbers() {
        long started = System.nanoTime();
        double sum = 0;
        for (int i = 0; i < 1_000; i++) {
            sum += random.nextDouble();
        }
        if (sum <= 0) {
            throw new AssertionError(sum);
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void findsPrimes() {
        long started = System.nanoTime();
        int count = 0;
        for (int n = 2; n < 500; n++) {
            if (BigInteger.valueOf(n).isProbablePrime(20)) {
                count++;
            }
        }
        if (count != 95) {
            throw new AssertionError(count);
        }
        Loops.done(started);
    }
}
