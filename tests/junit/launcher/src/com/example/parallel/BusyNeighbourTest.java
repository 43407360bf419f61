package com.example.parallel;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An ordinary test that holds more and more memory for longer than a heap-growth test takes: a
 * heap dump taken while it runs would show its list growing.
 */
class BusyNeighbourTest {
    static final List<long[]> HELD = new ArrayList<>();
    private static final long SECONDS = 10;

    @Test
    void holdsMoreAndMoreMemory() throws InterruptedException {
        long end = System.nanoTime() + SECONDS * 1_000_000_000L;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 100; i++) {
                HELD.add(new long[8]);
            }
            Thread.sleep(2);
        }
        HELD.clear();
    }
}
