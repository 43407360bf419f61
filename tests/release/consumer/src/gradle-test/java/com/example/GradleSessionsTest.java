package com.example;

import dev.heapgrowth.junit.HeapGrowthTest;
import org.junit.platform.runner.JUnitPlatform;
import org.junit.runner.RunWith;

// Gradle 4.4.1 runs JUnit 5 tests only through JUnit 4's runner (docs/junit.md, "Gradle 4.4.1"):
// the README's SessionsTest and its clean twin, public and annotated.
@RunWith(JUnitPlatform.class)
public class GradleSessionsTest {
    private final Sessions sessions = new Sessions();

    @HeapGrowthTest
    public void loginAndLogoutDoesNotLeak() {
        sessions.login("ann");
        sessions.logout("ann");
    }

    @HeapGrowthTest
    public void loginWithoutAuditAndLogoutDoesNotLeak() {
        sessions.loginWithoutAudit("ann");
        sessions.logout("ann");
    }
}
