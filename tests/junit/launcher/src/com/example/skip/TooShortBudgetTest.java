package com.example.skip;

import dev.heapgrowth.junit.HeapGrowthTest;
import java.util.ArrayList;
import java.util.List;

/**
 * A leak whose loop takes 20 ms, with a 1 s time budget and 100 loops before the second
 * snapshot: the search ends before it could judge. The test is skipped saying so, not passed
 * (which would call it clean).
 */
class TooShortBudgetTest {
    private static final List<String> KEPT = new ArrayList<>();

    @HeapGrowthTest(timeBudgetSeconds = 1, loopsPerSnapshot = 100)
    void keepsEverythingSlowly() throws InterruptedException {
        Thread.sleep(20);
        KEPT.add("entry-" + KEPT.size());
    }
}
