package com.example;

import dev.heapgrowth.junit.HeapGrowthTest;

// The clean twin of the README's SessionsTest (which the consumer test copies beside this file).
class CleanSessionsTest {
    private final Sessions sessions = new Sessions();

    @HeapGrowthTest
    void loginWithoutAuditAndLogoutDoesNotLeak() {
        sessions.loginWithoutAudit("ann");
        sessions.logout("ann");
    }
}
