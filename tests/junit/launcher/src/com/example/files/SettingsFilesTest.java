package com.example.files;

import dev.heapgrowth.junit.HeapGrowthTest;

/**
 * Run with a baseline or ignore file that cannot be used (a directory, not UTF-8): the test must
 * fail with one line naming the file and what is wrong, before any loop.
 */
class SettingsFilesTest {
    @HeapGrowthTest(maxSnapshots = 2)
    void anyTest() {
        new Object();
    }
}
