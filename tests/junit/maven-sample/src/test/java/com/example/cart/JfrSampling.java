package com.example.cart;

import dev.heapgrowth.junit.HeapGrowthTest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Heap-growth tests with {@code jfr = true}: JFR old-object samples instead of heap dumps, on a
 * heap kept big (128 MiB and half a million objects) as a test with a large fixture would. Not
 * matched by Surefire's default includes: run with {@code -Dtest=JfrSampling}.
 */
class JfrSampling {
    static final List<byte[]> RECEIPTS = new ArrayList<>();
    static final ArrayDeque<byte[]> RECENT_RECEIPTS = new ArrayDeque<>();
    static final long[][] FIXTURE = new long[128][];
    static final Object[] GRAPH = new Object[500_000];
    static volatile Object sink;

    static {
        for (int i = 0; i < FIXTURE.length; i++) {
            FIXTURE[i] = new long[1 << 17];
        }
        for (int i = 0; i < GRAPH.length; i++) {
            GRAPH[i] = new int[] {i};
        }
    }

    @HeapGrowthTest(jfr = true)
    void keepingEveryReceiptLeaks() throws InterruptedException {
        RECEIPTS.add(new byte[4096]);
        work();
    }

    @HeapGrowthTest(jfr = true)
    void keepingTheLastReceiptsDoesNotLeak() throws InterruptedException {
        RECENT_RECEIPTS.add(new byte[4096]);
        if (RECENT_RECEIPTS.size() > 400) {
            RECENT_RECEIPTS.removeFirst();
        }
        work();
    }

    private static void work() throws InterruptedException {
        for (int i = 0; i < 16; i++) {
            sink = new byte[1024];
        }
        Thread.sleep(1);
    }
}
