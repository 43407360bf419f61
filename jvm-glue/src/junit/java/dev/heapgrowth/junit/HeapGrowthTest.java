package dev.heapgrowth.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

/**
 * A test whose method body is one loop of a heap-growth scenario: heapgrowth runs it in loops,
 * takes live heap dumps, and fails the test with the tree report when something keeps growing
 * with the loops.
 *
 * <p>Each number is taken from the attribute when it is set (not negative), else from the
 * system property {@code heapgrowth.warmup}, {@code heapgrowth.loopsPerSnapshot},
 * {@code heapgrowth.maxSnapshots}, {@code heapgrowth.confirmLoops} or
 * {@code heapgrowth.timeBudget}, else the default of {@code heapgrowth run} (3, 4, 5, 1000,
 * 60). Ignore rules add to heapgrowth's built-in rules for known JDK growth and to those of the
 * file {@code heapgrowth.ignoreFile}.
 *
 * <p>A heap-growth test runs alone, also under {@code junit.jupiter.execution.parallel.enabled}:
 * its heap dumps see the whole JVM, so a test running at the same time would show its own
 * growth in this test's report. The read-write lock on {@link Resources#GLOBAL} (which every
 * other test holds for reading) keeps every other test of the JVM from running beside it.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Test
@ExtendWith(HeapGrowthExtension.class)
@ResourceLock(value = Resources.GLOBAL, mode = ResourceAccessMode.READ_WRITE)
public @interface HeapGrowthTest {
    /** Loops before the first snapshot; negative: system property, then default. */
    int warmup() default -1;

    /** Loops between the first two snapshots (the gap then doubles); negative: system property, then default. */
    int loopsPerSnapshot() default -1;

    /** Snapshots of the detection phase; negative: system property, then default. */
    int maxSnapshots() default -1;

    /** Loops the run reaches before growth counts as confirmed; negative: system property, then default. */
    int confirmLoops() default -1;

    /** Seconds the search may take before confirmation stops early; negative: system property, then default. */
    int timeBudgetSeconds() default -1;

    /**
     * For heaps too big to dump: JFR old-object samples instead of heap dumps, as {@code heapgrowth
     * run --jfr} (also for every test: system property {@code heapgrowth.jfr=true}). The test JVM
     * needs its Flight Recorder, and its JDK the {@code jfr} tool; it must not run with {@code -Xrs}.
     */
    boolean jfr() default false;

    /**
     * Growth this test accepts: each entry a pattern, then optionally a reason, as for
     * {@code heapgrowth run --ignore} ({@code "com.example.Cache.entries warms up over 2000 loops"}).
     * Ignored paths that grew are listed in the report with the reason.
     */
    String[] ignore() default {};
}
