package dev.heapgrowth.gradle;

import java.io.File;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;

import org.gradle.api.Project;
import org.gradle.api.file.Directory;
import org.gradle.api.file.FileCollection;
import org.gradle.api.file.RegularFileProperty;
import org.gradle.api.provider.Provider;
import org.gradle.api.tasks.Input;
import org.gradle.api.tasks.InputFiles;
import org.gradle.api.tasks.Internal;
import org.gradle.api.tasks.PathSensitive;
import org.gradle.api.tasks.PathSensitivity;
import org.gradle.api.tasks.TaskInputs;
import org.gradle.api.tasks.testing.Test;
import org.gradle.process.CommandLineArgumentProvider;

/**
 * What a {@code Test} task's JVM gets from the plugin: the agent, the engine, the settings, the
 * report directory, the baseline and the ignore file, as JVM arguments with absolute paths.
 *
 * <p>Its annotated properties are inputs of the task, so that a changed setting, baseline or
 * ignore file runs the tests again: the settings by value, the files by content and by their
 * path relative to their root ({@link PathSensitivity#RELATIVE}), so that another checkout's
 * build can take the results from the build cache. The absolute paths themselves are
 * {@link Internal}: they differ between checkouts and say nothing about the outcome. The agent
 * and the engine are no inputs of their own: they come out of the extension jar, which is on the
 * test classpath (an input already). The report directory is no declared output either: every
 * test task of the project writes to the same one by default, and overlapping outputs would
 * keep all of them out of the build cache.
 *
 * <p>The files are {@link InputFiles} rather than {@code @InputFile}: each may be missing (the
 * project ignore file is optional, the baseline is created by the first update, and a named
 * ignore file that does not exist is for the extension to report in its own words).
 */
public final class TestJvmArguments implements CommandLineArgumentProvider {
    /**
     * The project's ignore file, which the engine reads from the test JVM's working directory
     * whenever it exists (the project directory, unless the task's {@code workingDir} is changed).
     */
    static final String PROJECT_IGNORE_FILE = "heapgrowth-ignore.txt";
    static final String REPORT_DIR = "reports/heapgrowth";

    private final HeapGrowthSettings settings;
    private final Provider<Boolean> updateRequested;
    private final Provider<Boolean> skipRequested;
    private final Provider<Directory> prepared;
    private final Provider<Directory> defaultReportDir;
    private final FileCollection baseline;
    private final FileCollection ignoreFile;
    private final FileCollection projectIgnoreFile;

    /**
     * @param prepared where {@code heapGrowthPrepare} writes the native libraries
     * @param updateRequested whether {@code -Pheapgrowth.updateBaseline=true} was given
     * @param skipRequested whether {@code -Pheapgrowth.skip=true} was given
     */
    TestJvmArguments(Project project, Test test, HeapGrowthSettings settings, Provider<Directory> prepared,
            Provider<Boolean> updateRequested, Provider<Boolean> skipRequested) {
        this.settings = settings;
        this.updateRequested = updateRequested;
        this.skipRequested = skipRequested;
        this.prepared = prepared;
        this.defaultReportDir = project.getLayout().getBuildDirectory().dir(REPORT_DIR);
        this.baseline = optionalFile(project, settings.getBaseline());
        this.ignoreFile = optionalFile(project, settings.getIgnoreFile());
        this.projectIgnoreFile = project.files((Callable<File>) () -> new File(test.getWorkingDir(), PROJECT_IGNORE_FILE));
    }

    /** The settings that change the outcome, as the system properties the extension reads. */
    @Input
    public Map<String, String> getSettings() {
        if (isSkip()) {
            return Collections.singletonMap(HeapGrowthPlugin.SKIP_PROPERTY, "true");
        }
        Map<String, String> values = new TreeMap<>(settings.numbers());
        if (isUpdateBaseline()) {
            values.put("heapgrowth.updateBaseline", "true");
        }
        return values;
    }

    @InputFiles
    @PathSensitive(PathSensitivity.RELATIVE)
    public FileCollection getBaseline() {
        return baseline;
    }

    @InputFiles
    @PathSensitive(PathSensitivity.RELATIVE)
    public FileCollection getIgnoreFile() {
        return ignoreFile;
    }

    @InputFiles
    @PathSensitive(PathSensitivity.RELATIVE)
    public FileCollection getProjectIgnoreFile() {
        return projectIgnoreFile;
    }

    /** Whether this run rewrites the baseline (then the task is never up to date, nor cached). */
    @Internal
    public boolean isUpdateBaseline() {
        return Boolean.TRUE.equals(settings.getUpdateBaseline().getOrNull())
                || Boolean.TRUE.equals(updateRequested.getOrNull());
    }

    /** Whether every heap-growth test is skipped (then the JVM gets nothing else of heapgrowth). */
    @Internal
    public boolean isSkip() {
        return Boolean.TRUE.equals(settings.getSkip().getOrNull()) || Boolean.TRUE.equals(skipRequested.getOrNull());
    }

    /**
     * Whether the libraries the plugin carries (Linux x86-64) run on {@code osName}/{@code osArch}.
     * Elsewhere the test JVM gets no {@code -agentpath:} (a library built for another platform
     * would stop it from starting), and the extension skips each heap-growth test, saying why.
     */
    static boolean librariesRunOn(String osName, String osArch) {
        return osName.toLowerCase(Locale.ROOT).startsWith("linux") && (osArch.equals("amd64") || osArch.equals("x86_64"));
    }

    @Internal
    public File getReportDir() {
        return (settings.getReportDir().isPresent() ? settings.getReportDir() : defaultReportDir).get().getAsFile();
    }

    @Internal
    public File getAgent() {
        return prepared.get().file("native/" + HeapGrowthPlugin.AGENT_LIBRARY).getAsFile();
    }

    @Internal
    public File getEngine() {
        return prepared.get().file("native/" + HeapGrowthPlugin.ENGINE_LIBRARY).getAsFile();
    }

    @Override
    public List<String> asArguments() {
        List<String> arguments = new ArrayList<>();
        if (isSkip()) {
            arguments.add("-D" + HeapGrowthPlugin.SKIP_PROPERTY + "=true");
            return arguments;
        }
        if (librariesRunOn(System.getProperty("os.name", ""), System.getProperty("os.arch", ""))) {
            arguments.add("-agentpath:" + getAgent().getAbsolutePath());
            arguments.add("-Dheapgrowth.library=" + getEngine().getAbsolutePath());
        }
        for (Map.Entry<String, String> setting : getSettings().entrySet()) {
            arguments.add("-D" + setting.getKey() + "=" + setting.getValue());
        }
        File ignore = HeapGrowthSettings.fileOrNull(settings.getIgnoreFile());
        if (ignore != null) {
            arguments.add("-Dheapgrowth.ignoreFile=" + ignore.getAbsolutePath());
        }
        File accepted = HeapGrowthSettings.fileOrNull(settings.getBaseline());
        if (accepted != null) {
            arguments.add("-Dheapgrowth.baseline=" + accepted.getAbsolutePath());
        }
        arguments.add("-Dheapgrowth.reportDir=" + getReportDir().getAbsolutePath());
        return arguments;
    }

    /**
     * Declares the annotated properties above on {@code inputs}, for a Gradle without JVM
     * argument providers (see {@link GradleCompat#addJvmArguments}).
     */
    void declareInputs(TaskInputs inputs) {
        inputs.property("heapGrowth.settings", (Callable<Map<String, String>>) this::getSettings);
        inputs.files(baseline).withPropertyName("heapGrowth.baseline").withPathSensitivity(PathSensitivity.RELATIVE);
        inputs.files(ignoreFile).withPropertyName("heapGrowth.ignoreFile").withPathSensitivity(PathSensitivity.RELATIVE);
        inputs.files(projectIgnoreFile).withPropertyName("heapGrowth.projectIgnoreFile")
                .withPathSensitivity(PathSensitivity.RELATIVE);
    }

    /** The file {@code property} will name when the task runs, or nothing while it is unset. */
    private static FileCollection optionalFile(Project project, RegularFileProperty property) {
        return project.files((Callable<Object>) () -> {
            File file = HeapGrowthSettings.fileOrNull(property);
            return file == null ? Collections.emptyList() : file;
        });
    }
}
