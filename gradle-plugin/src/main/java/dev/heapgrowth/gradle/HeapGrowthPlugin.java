package dev.heapgrowth.gradle;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.Callable;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import org.gradle.api.DefaultTask;
import org.gradle.api.GradleException;
import org.gradle.api.Plugin;
import org.gradle.api.Project;
import org.gradle.api.file.Directory;
import org.gradle.api.file.DirectoryProperty;
import org.gradle.api.provider.Provider;
import org.gradle.api.tasks.OutputDirectory;
import org.gradle.api.tasks.TaskAction;
import org.gradle.api.tasks.testing.Test;

/**
 * The {@code dev.heapgrowth} plugin: adds heapgrowth's JUnit extension to the test classpath (compile and runtime: tests use {@code @HeapGrowthTest}),
 * its JVMTI agent ({@code -agentpath:}) and engine library to every {@link Test} task's JVM,
 * and the {@code heapGrowth { }} settings, report directory and baseline as system properties
 * ({@link TestJvmArguments}: the settings, the baseline and the ignore files are inputs of the
 * task, so changing one runs the tests again).
 *
 * <p>The extension jar travels inside this plugin's jar; task {@code heapGrowthPrepare} writes it
 * and the two native libraries from it to {@code build/heapgrowth/} (inside the project, so no
 * shared temporary path another user could plant a library in).
 *
 * <p>Written for today's Gradle API (lazy tasks and properties, no {@code getBuildDir()}); what
 * Gradle 4.4.1 lacks is bridged in {@link GradleCompat} alone. The build compiles the plugin
 * against both (see build-plugin.sh).
 */
public class HeapGrowthPlugin implements Plugin<Project> {
    /** The extension jar inside this plugin's jar. */
    static final String EXTENSION_JAR_RESOURCE = "/dev/heapgrowth/gradle/heapgrowth-junit.jar";
    static final String NATIVE_DIR = "META-INF/native/linux-x86_64/";
    static final String AGENT_LIBRARY = "libheapgrowth_agent.so";
    static final String ENGINE_LIBRARY = "libheapgrowth.so";
    static final String EXTENSION_JAR = "heapgrowth-junit.jar";
    /** {@code -Pheapgrowth.updateBaseline=true} rewrites the baseline. */
    static final String UPDATE_PROPERTY = "heapgrowth.updateBaseline";
    /** {@code -Pheapgrowth.skip=true} reports every heap-growth test as skipped. */
    static final String SKIP_PROPERTY = "heapgrowth.skip";
    /** Each test task's {@link TestJvmArguments}, under this name among the task's extensions. */
    static final String JVM_ARGUMENTS_EXTENSION = "heapGrowthJvmArguments";

    @Override
    public void apply(Project project) {
        HeapGrowthSettings settings = project.getExtensions().create("heapGrowth", HeapGrowthSettings.class, project);
        Provider<Directory> dir = project.getLayout().getBuildDirectory().dir("heapgrowth");
        Object prepare = GradleCompat.register(project, "heapGrowthPrepare", Prepare.class, task -> {
            task.setDescription("Writes heapgrowth's JUnit extension jar and native libraries to build/heapgrowth");
            task.getDirectory().set(dir);
        });
        Provider<Boolean> updateRequested = booleanProperty(project, UPDATE_PROPERTY);
        Provider<Boolean> skipRequested = booleanProperty(project, SKIP_PROPERTY);

        project.getPluginManager().withPlugin("java", java -> project.getDependencies().add("testImplementation",
                project.files((Callable<File>) () -> dir.get().file(EXTENSION_JAR).getAsFile()).builtBy(prepare)));
        GradleCompat.configureEach(project.getTasks().withType(Test.class), test -> {
            test.dependsOn(prepare);
            TestJvmArguments arguments = new TestJvmArguments(project, test, settings, dir, updateRequested,
                    skipRequested);
            GradleCompat.addJvmArguments(test, arguments);
            // A rewrite of the baseline must happen when asked for: never skip it, never take it
            // from the cache (the baseline it writes is no output of the task).
            test.getOutputs().upToDateWhen(task -> !arguments.isUpdateBaseline());
            test.getOutputs().doNotCacheIf("heapgrowth rewrites the baseline", task -> arguments.isUpdateBaseline());
            test.addTestListener(new FailedTestReports(arguments, test.getLogger()));
            test.getExtensions().add(JVM_ARGUMENTS_EXTENSION, arguments);
        });
    }

    /** Whether the Gradle property {@code name} is {@code true} ({@code -Pname=true}). */
    private static Provider<Boolean> booleanProperty(Project project, String name) {
        return project.provider(() -> project.hasProperty(name)
                && Boolean.parseBoolean(String.valueOf(project.property(name))));
    }

    /** Writes the extension jar and its native libraries to {@code build/heapgrowth/}. */
    public static class Prepare extends DefaultTask {
        private final DirectoryProperty directory = GradleCompat.directoryProperty(getProject());

        @OutputDirectory
        public DirectoryProperty getDirectory() {
            return directory;
        }

        @TaskAction
        public void write() {
            try {
                File jar = directory.file(EXTENSION_JAR).get().getAsFile();
                File natives = directory.dir("native").get().getAsFile();
                Files.createDirectories(natives.toPath());
                try (InputStream in = HeapGrowthPlugin.class.getResourceAsStream(EXTENSION_JAR_RESOURCE)) {
                    if (in == null) {
                        throw new GradleException("the heapgrowth plugin jar lacks " + EXTENSION_JAR_RESOURCE);
                    }
                    Files.copy(in, jar.toPath(), StandardCopyOption.REPLACE_EXISTING);
                }
                try (ZipFile zip = new ZipFile(jar)) {
                    for (String name : new String[] {AGENT_LIBRARY, ENGINE_LIBRARY}) {
                        ZipEntry entry = zip.getEntry(NATIVE_DIR + name);
                        if (entry == null) {
                            throw new GradleException(jar + " lacks " + NATIVE_DIR + name);
                        }
                        File target = new File(natives, name);
                        try (InputStream in = zip.getInputStream(entry)) {
                            Files.copy(in, target.toPath(), StandardCopyOption.REPLACE_EXISTING);
                        }
                        if (!target.setExecutable(true, true) || !target.setReadable(true, true)) {
                            throw new GradleException("cannot set the permissions of " + target);
                        }
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
