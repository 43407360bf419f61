package dev.heapgrowth.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test whose method body is one loop of a heap-growth scenario: heapgrowth runs it in loops,
 * takes live heap dumps, and fails the test with the tree report when something grows with
 * every loop.
 *
 * <p>Each setting is taken from the attribute when it is set (not negative), else from the
 * system property {@code heapgrowth.warmup}, {@code heapgrowth.loopsPerSnapshot} or
 * {@code heapgrowth.maxSnapshots}, else the default of {@code heapgrowth run} (3, 2, 5).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Test
@ExtendWith(HeapGrowthExtension.class)
public @interface HeapGrowthTest {
    /** Loops before the first snapshot; negative: system property, then default. */
    int warmup() default -1;

    /** Loops between snapshots; negative: system property, then default. */
    int loopsPerSnapshot() default -1;

    /** Snapshots of the detection phase; negative: system property, then default. */
    int maxSnapshots() default -1;
}
