package dev.heapgrowth.gradle;

import java.io.File;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code heapGrowth { }} block. Unset values leave the extension's own defaults (those of
 * {@code heapgrowth run}); every set value reaches the test JVM as a system property.
 *
 * <pre>
 * heapGrowth {
 *     warmup = 3; loopsPerSnapshot = 4; maxSnapshots = 5; confirmLoops = 1000; timeBudget = 60
 *     baseline = file('heapgrowth-baseline.txt')
 *     ignoreFile = file('heapgrowth-ignore.txt')
 *     reportDir = file("$buildDir/reports/heapgrowth")   // the default
 * }
 * </pre>
 *
 * Plain getters and setters: this class must work with Gradle 4.4.1 as well as 8.x, so it uses
 * no {@code Property} types (which 4.4.1 lacks in this form).
 */
public class HeapGrowthSettings {
    private Integer warmup;
    private Integer loopsPerSnapshot;
    private Integer maxSnapshots;
    private Integer confirmLoops;
    private Integer timeBudget;
    private File ignoreFile;
    private File baseline;
    private File reportDir;
    private boolean updateBaseline;

    public Integer getWarmup() {
        return warmup;
    }

    public void setWarmup(Integer warmup) {
        this.warmup = warmup;
    }

    public Integer getLoopsPerSnapshot() {
        return loopsPerSnapshot;
    }

    public void setLoopsPerSnapshot(Integer loopsPerSnapshot) {
        this.loopsPerSnapshot = loopsPerSnapshot;
    }

    public Integer getMaxSnapshots() {
        return maxSnapshots;
    }

    public void setMaxSnapshots(Integer maxSnapshots) {
        this.maxSnapshots = maxSnapshots;
    }

    public Integer getConfirmLoops() {
        return confirmLoops;
    }

    public void setConfirmLoops(Integer confirmLoops) {
        this.confirmLoops = confirmLoops;
    }

    /** Seconds each test's search may take. */
    public Integer getTimeBudget() {
        return timeBudget;
    }

    public void setTimeBudget(Integer timeBudget) {
        this.timeBudget = timeBudget;
    }

    /** A file of ignore rules for every test, one per line: a pattern, then a reason. */
    public File getIgnoreFile() {
        return ignoreFile;
    }

    public void setIgnoreFile(File ignoreFile) {
        this.ignoreFile = ignoreFile;
    }

    /** The file of accepted growth paths; none by default (every growing path fails). */
    public File getBaseline() {
        return baseline;
    }

    public void setBaseline(File baseline) {
        this.baseline = baseline;
    }

    /** Where the text and JSON reports go; {@code build/reports/heapgrowth} by default. */
    public File getReportDir() {
        return reportDir;
    }

    public void setReportDir(File reportDir) {
        this.reportDir = reportDir;
    }

    /** Rewrite the baseline from this run; also {@code -Pheapgrowth.updateBaseline=true}. */
    public boolean isUpdateBaseline() {
        return updateBaseline;
    }

    public void setUpdateBaseline(boolean updateBaseline) {
        this.updateBaseline = updateBaseline;
    }

    /** The system properties the extension reads, for the values that are set. */
    Map<String, String> systemProperties(File defaultReportDir, boolean updateRequested) {
        Map<String, String> properties = new LinkedHashMap<>();
        put(properties, "heapgrowth.warmup", warmup);
        put(properties, "heapgrowth.loopsPerSnapshot", loopsPerSnapshot);
        put(properties, "heapgrowth.maxSnapshots", maxSnapshots);
        put(properties, "heapgrowth.confirmLoops", confirmLoops);
        put(properties, "heapgrowth.timeBudget", timeBudget);
        if (ignoreFile != null) {
            properties.put("heapgrowth.ignoreFile", ignoreFile.getAbsolutePath());
        }
        properties.put("heapgrowth.reportDir",
                (reportDir != null ? reportDir : defaultReportDir).getAbsolutePath());
        if (baseline != null) {
            properties.put("heapgrowth.baseline", baseline.getAbsolutePath());
        }
        if (updateBaseline || updateRequested) {
            properties.put("heapgrowth.updateBaseline", "true");
        }
        return properties;
    }

    private static void put(Map<String, String> properties, String key, Integer value) {
        if (value != null) {
            properties.put(key, value.toString());
        }
    }
}
