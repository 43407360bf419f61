package com.example.parallel;

import dev.heapgrowth.junit.HeapGrowthTest;
import java.util.ArrayList;
import java.util.List;

/** A leak that runs next to BusyNeighbourTest: its report must name only its own line. */
class LeakTest {
    private static final List<String> SEEN = new ArrayList<>();

    @HeapGrowthTest
    void keepsEveryRequest() {
        SEEN.add("request-" + SEEN.size()); // GROWS
    }
}
