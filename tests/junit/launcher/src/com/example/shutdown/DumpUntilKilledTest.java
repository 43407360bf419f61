package com.example.shutdown;

import dev.heapgrowth.junit.HeapGrowthTest;
import java.util.ArrayList;
import java.util.List;

/**
 * A leak whose search outlasts the run: tests/junit/run-launcher.sh sends the test JVM SIGTERM
 * or SIGHUP while it writes a heap dump and checks that the dump does not stay in $TMPDIR.
 */
class DumpUntilKilledTest {
    /**
     * Two million small objects: enough that each dump takes a good part of a second, so a signal
     * sent when the dump file appears lands while the JVM is still writing it.
     */
    private static final Object[] BALLAST = new Object[2_000_000];
    private static final List<String> SECRETS = new ArrayList<>();

    static {
        for (int i = 0; i < BALLAST.length; i++) {
            BALLAST[i] = new int[] {i};
        }
    }

    @HeapGrowthTest(warmup = 0, loopsPerSnapshot = 1, maxSnapshots = 16, confirmLoops = 100000000,
            timeBudgetSeconds = 3600)
    void keepsEverySecret() {
        SECRETS.add("secret-" + SECRETS.size());
    }
}
