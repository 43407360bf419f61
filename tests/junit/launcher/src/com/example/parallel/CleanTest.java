package com.example.parallel;

import dev.heapgrowth.junit.HeapGrowthTest;
import java.util.ArrayList;
import java.util.List;

/** Clean, and scheduled next to BusyNeighbourTest: it must pass, the neighbour's growth is not its own. */
class CleanTest {
    private final List<String> requests = new ArrayList<>();

    @HeapGrowthTest
    void forgetsEveryRequest() {
        requests.add("request");
        requests.clear();
    }
}
