package dev.heapgrowth.gradle;

import java.io.File;
import java.util.LinkedHashMap;
import java.util.Map;

import org.gradle.api.Project;
import org.gradle.api.file.DirectoryProperty;
import org.gradle.api.file.RegularFileProperty;
import org.gradle.api.provider.Property;

/**
 * The {@code heapGrowth { }} block. Unset values leave the extension's own defaults (those of
 * {@code heapgrowth run}); every set value reaches the test JVM as a system property, and is an
 * input of every {@code Test} task (see {@link TestJvmArguments}).
 *
 * <pre>
 * heapGrowth {                                   // Groovy DSL
 *     warmup = 3; loopsPerSnapshot = 4; maxSnapshots = 5; confirmLoops = 1000; timeBudget = 60
 *     baseline = file('heapgrowth-baseline.txt')
 *     ignoreFile = file('more-ignore-rules.txt')
 *     reportDir = file("reports/heapgrowth")     // default: build/reports/heapgrowth
 *     keepDumps = 'failed'                       // default: 'never'; dumps hold the heap's secrets
 *     jfr = true                                 // JFR old-object samples, for heaps too big to dump
 *     skip = true                                // heap-growth tests reported as skipped; also -Pheapgrowth.skip=true
 * }
 * heapGrowth {                                   // Kotlin DSL
 *     maxSnapshots.set(5)                        // (Gradle 8.2+: maxSnapshots = 5)
 *     baseline.set(file("heapgrowth-baseline.txt"))
 * }
 * </pre>
 *
 * The values are lazy {@link Property} types, read when a test task runs. Each also has a plain
 * setter, so that {@code maxSnapshots = 5} works in the Groovy DSL of every Gradle version the
 * plugin runs on (4.4.1 does not turn an assignment into {@code set()}).
 */
public class HeapGrowthSettings {
    private final Property<Integer> warmup;
    private final Property<Integer> loopsPerSnapshot;
    private final Property<Integer> maxSnapshots;
    private final Property<Integer> confirmLoops;
    private final Property<Integer> timeBudget;
    private final RegularFileProperty ignoreFile;
    private final RegularFileProperty baseline;
    private final DirectoryProperty reportDir;
    private final Property<Boolean> updateBaseline;
    private final Property<String> keepDumps;
    private final Property<Boolean> jfr;
    private final Property<Boolean> skip;

    public HeapGrowthSettings(Project project) {
        warmup = GradleCompat.property(project, Integer.class);
        loopsPerSnapshot = GradleCompat.property(project, Integer.class);
        maxSnapshots = GradleCompat.property(project, Integer.class);
        confirmLoops = GradleCompat.property(project, Integer.class);
        timeBudget = GradleCompat.property(project, Integer.class);
        ignoreFile = GradleCompat.fileProperty(project);
        baseline = GradleCompat.fileProperty(project);
        reportDir = GradleCompat.directoryProperty(project);
        updateBaseline = GradleCompat.property(project, Boolean.class);
        keepDumps = GradleCompat.property(project, String.class);
        jfr = GradleCompat.property(project, Boolean.class);
        skip = GradleCompat.property(project, Boolean.class);
    }

    /** Loops run before the first snapshot. */
    public Property<Integer> getWarmup() {
        return warmup;
    }

    public void setWarmup(Integer value) {
        warmup.set(value);
    }

    /** Loops run between two snapshots. */
    public Property<Integer> getLoopsPerSnapshot() {
        return loopsPerSnapshot;
    }

    public void setLoopsPerSnapshot(Integer value) {
        loopsPerSnapshot.set(value);
    }

    /** Heap snapshots the search may take. */
    public Property<Integer> getMaxSnapshots() {
        return maxSnapshots;
    }

    public void setMaxSnapshots(Integer value) {
        maxSnapshots.set(value);
    }

    /** Loops that confirm a growing path. */
    public Property<Integer> getConfirmLoops() {
        return confirmLoops;
    }

    public void setConfirmLoops(Integer value) {
        confirmLoops.set(value);
    }

    /** Seconds each test's search may take. */
    public Property<Integer> getTimeBudget() {
        return timeBudget;
    }

    public void setTimeBudget(Integer value) {
        timeBudget.set(value);
    }

    /**
     * A file of ignore rules for every test, one per line: a pattern, then a reason. The project
     * directory's {@code heapgrowth-ignore.txt} (the test JVM's working directory's) is read as
     * well, when it exists.
     */
    public RegularFileProperty getIgnoreFile() {
        return ignoreFile;
    }

    public void setIgnoreFile(File file) {
        ignoreFile.set(file);
    }

    /** The file of accepted growth paths; none by default (every growing path fails). */
    public RegularFileProperty getBaseline() {
        return baseline;
    }

    public void setBaseline(File file) {
        baseline.set(file);
    }

    /** Where the text and JSON reports go; {@code build/reports/heapgrowth} by default. */
    public DirectoryProperty getReportDir() {
        return reportDir;
    }

    public void setReportDir(File dir) {
        reportDir.set(dir);
    }

    /** Rewrite the baseline from this run; also {@code -Pheapgrowth.updateBaseline=true}. */
    public Property<Boolean> getUpdateBaseline() {
        return updateBaseline;
    }

    public void setUpdateBaseline(boolean value) {
        updateBaseline.set(value);
    }

    /**
     * {@code 'failed'} keeps the last two heap dumps of a failing test in the report directory's
     * {@code dumps/}, owner-only; {@code 'never'} (the default) deletes them all. Dumps hold
     * every secret in the heap.
     */
    public Property<String> getKeepDumps() {
        return keepDumps;
    }

    public void setKeepDumps(String value) {
        keepDumps.set(value);
    }

    /** JFR old-object samples instead of heap dumps, for every heap-growth test (default: off). */
    public Property<Boolean> getJfr() {
        return jfr;
    }

    public void setJfr(boolean value) {
        jfr.set(value);
    }

    /**
     * Every {@code @HeapGrowthTest} is reported as skipped, and the test JVM gets neither agent
     * nor engine; also {@code -Pheapgrowth.skip=true}. Other tests run as always.
     */
    public Property<Boolean> getSkip() {
        return skip;
    }

    public void setSkip(boolean value) {
        skip.set(value);
    }

    /** The system properties for the settings that are set, by the extension's names. */
    Map<String, String> numbers() {
        Map<String, String> properties = new LinkedHashMap<>();
        if (keepDumps.isPresent()) {
            properties.put("heapgrowth.keepDumps", keepDumps.get());
        }
        put(properties, "heapgrowth.warmup", warmup);
        put(properties, "heapgrowth.loopsPerSnapshot", loopsPerSnapshot);
        put(properties, "heapgrowth.maxSnapshots", maxSnapshots);
        put(properties, "heapgrowth.confirmLoops", confirmLoops);
        put(properties, "heapgrowth.timeBudget", timeBudget);
        if (jfr.isPresent() && jfr.get()) {
            properties.put("heapgrowth.jfr", "true");
        }
        return properties;
    }

    /** The file {@code property} names, or null when it is unset. */
    static File fileOrNull(RegularFileProperty property) {
        return property.isPresent() ? property.get().getAsFile() : null;
    }

    private static void put(Map<String, String> properties, String key, Property<Integer> value) {
        if (value.isPresent()) {
            properties.put(key, value.get().toString());
        }
    }
}
