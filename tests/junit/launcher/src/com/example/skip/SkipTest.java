package com.example.skip;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.heapgrowth.junit.HeapGrowthTest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A leak that fails when heapgrowth runs, and a plain test beside it: with heapgrowth.skip=true,
 * or on a platform the jar has no engine for, the leak is skipped, never failed, and the plain
 * test still runs.
 */
class SkipTest {
    private static final List<String> KEPT = new ArrayList<>();

    @HeapGrowthTest
    void keepsEverything() {
        KEPT.add("entry-" + KEPT.size()); // GROWS
    }

    @Test
    void plainTestStillRuns() {
        assertEquals(2, 1 + 1);
    }
}
