package com.example.gate;

import dev.heapgrowth.junit.HeapGrowthTest;
import java.util.ArrayList;
import java.util.List;

/**
 * Two leaks a baseline accepts, for run-launcher.sh's gate section: it adds a comment line above
 * the growing code (after the MOVE marker) and switches the agent on and off, and the accepted
 * baseline must keep passing.
 */
class AcceptedLeaksTest {
    /** Final: without the agent no recording proxy can go in, so it is "not attributed". */
    private static final List<String> AUDIT = new ArrayList<>();
    /** Not final: a recording proxy attributes it without the agent too. */
    private static List<String> history = new ArrayList<>();
    /** Reached through the test instance, which JUnit's own frames hold. */
    private final List<String> mine = new ArrayList<>();

    @HeapGrowthTest
    void auditTrailIsKept() {
        record();
    }

    @HeapGrowthTest
    void historyIsKept() {
        remember();
    }

    @HeapGrowthTest
    void instanceListIsKept() {
        mine.add("entry-" + mine.size()); // GROWS
    }

    private static void record() {
        // MOVE: run-launcher.sh inserts a line here
        AUDIT.add("entry-" + AUDIT.size()); // GROWS
    }

    private static void remember() {
        history.add("entry-" + history.size()); // GROWS
    }
}
