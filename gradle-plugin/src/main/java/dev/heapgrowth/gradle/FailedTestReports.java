package dev.heapgrowth.gradle;

import java.io.File;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.gradle.api.logging.Logger;
import org.gradle.api.tasks.testing.TestDescriptor;
import org.gradle.api.tasks.testing.TestListener;
import org.gradle.api.tasks.testing.TestResult;

/**
 * Names the heap-growth report of each failed test on Gradle's console. Gradle shows a failed
 * test as {@code CartTest > openingAndClosingTheCartDoesNotLeak FAILED /
 * dev.heapgrowth.junit.HeapGrowthFailure} and keeps its stack trace (with the tree report) for
 * the HTML report and the XML results; these lines
 * at the end of the run say where the reports are:
 *
 * <pre>
 * heapgrowth: the failed tests' reports (the growing paths and the lines to look at):
 *     file:///.../build/reports/heapgrowth/com.example.cart.CartTest.openingAndClosingTheCartDoesNotLeak.txt
 * </pre>
 *
 * Only a report this run wrote counts (one older than the test is from an earlier run).
 */
final class FailedTestReports implements TestListener {
    private final TestJvmArguments arguments;
    private final Logger logger;
    /** The reports of this run's failed tests, named once the run ends. */
    private final List<String> reports = Collections.synchronizedList(new ArrayList<String>());

    FailedTestReports(TestJvmArguments arguments, Logger logger) {
        this.arguments = arguments;
        this.logger = logger;
    }

    @Override
    public void afterTest(TestDescriptor test, TestResult result) {
        if (result.getResultType() != TestResult.ResultType.FAILURE || test.getClassName() == null) {
            return;
        }
        // The extension names a report <class>.<method>. JUnit Platform names a test "method()"
        // in its class; JUnit 4's JUnitPlatform runner (Gradle 4.4.1) "Class.method()" in a class
        // of that simple name, whose parent has the full one.
        String method = test.getName();
        int parameters = method.indexOf('(');
        method = parameters < 0 ? method : method.substring(0, parameters);
        method = method.substring(method.lastIndexOf('.') + 1);
        for (TestDescriptor owner = test; owner != null && owner.getClassName() != null; owner = owner.getParent()) {
            String name = owner.getClassName() + "." + method;
            File report = new File(arguments.getReportDir(), name + ".txt");
            // File times have a resolution of a second on some file systems.
            if (report.isFile() && report.lastModified() >= result.getStartTime() - 1000) {
                reports.add(report.toPath().toUri().toString());
                return;
            }
        }
    }

    @Override
    public void beforeSuite(TestDescriptor suite) {}

    @Override
    public void afterSuite(TestDescriptor suite, TestResult result) {
        if (suite.getParent() == null && !reports.isEmpty()) {
            logger.lifecycle("heapgrowth: the failed tests' reports (the growing paths and the lines to look at):");
            for (String report : reports) {
                logger.lifecycle("    " + report);
            }
            reports.clear();
        }
    }

    @Override
    public void beforeTest(TestDescriptor test) {}
}
