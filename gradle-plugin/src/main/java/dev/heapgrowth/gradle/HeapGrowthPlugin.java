package dev.heapgrowth.gradle;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import org.gradle.api.DefaultTask;
import org.gradle.api.GradleException;
import org.gradle.api.Plugin;
import org.gradle.api.Project;
import org.gradle.api.tasks.TaskAction;
import org.gradle.api.tasks.testing.Test;

/**
 * The {@code dev.heapgrowth} plugin: adds heapgrowth's JUnit extension to the test classpath (compile and runtime: tests use {@code @HeapGrowthTest}),
 * its JVMTI agent ({@code -agentpath:}) and engine library to every {@link Test} task's JVM,
 * and the {@code heapGrowth { }} settings, report directory and baseline as system properties.
 *
 * <p>The extension jar travels inside this plugin's jar; task {@code heapGrowthPrepare} writes it
 * and the two native libraries from it to {@code build/heapgrowth/} (inside the project, so no
 * shared temporary path another user could plant a library in).
 *
 * <p>Only Gradle API that exists in both 4.4.1 and 8.x is used; the build compiles this class
 * against both (see build-plugin.sh).
 */
public class HeapGrowthPlugin implements Plugin<Project> {
    /** The extension jar inside this plugin's jar. */
    static final String EXTENSION_JAR_RESOURCE = "/dev/heapgrowth/gradle/heapgrowth-junit.jar";
    static final String NATIVE_DIR = "META-INF/native/linux-x86_64/";
    static final String AGENT_LIBRARY = "libheapgrowth_agent.so";
    static final String ENGINE_LIBRARY = "libheapgrowth.so";
    /** {@code -Pheapgrowth.updateBaseline=true} rewrites the baseline. */
    static final String UPDATE_PROPERTY = "heapgrowth.updateBaseline";

    @Override
    public void apply(Project project) {
        HeapGrowthSettings settings = project.getExtensions().create("heapGrowth", HeapGrowthSettings.class);
        File dir = new File(project.getBuildDir(), "heapgrowth");
        File extensionJar = new File(dir, "heapgrowth-junit.jar");
        File agent = new File(dir, "native/" + AGENT_LIBRARY);
        File engine = new File(dir, "native/" + ENGINE_LIBRARY);

        Prepare prepare = project.getTasks().create("heapGrowthPrepare", Prepare.class);
        prepare.setDescription("Writes heapgrowth's JUnit extension jar and native libraries to " + dir);
        prepare.directory = dir;

        project.getPluginManager().withPlugin("java", java -> {
            project.getDependencies().add("testImplementation", project.files(extensionJar).builtBy(prepare));
        });
        project.getTasks().withType(Test.class, test -> {
            test.dependsOn(prepare);
            test.jvmArgs("-agentpath:" + agent.getAbsolutePath());
            test.systemProperty("heapgrowth.library", engine.getAbsolutePath());
        });
        project.afterEvaluate(evaluated -> {
            boolean update = Boolean.parseBoolean(String.valueOf(
                    evaluated.hasProperty(UPDATE_PROPERTY) ? evaluated.property(UPDATE_PROPERTY) : "false"));
            Map<String, String> properties = settings.systemProperties(
                    new File(evaluated.getBuildDir(), "reports/heapgrowth"), update);
            evaluated.getTasks().withType(Test.class, test -> test.systemProperties(properties));
        });
    }

    /** Writes the extension jar and its native libraries to {@code build/heapgrowth/}. */
    public static class Prepare extends DefaultTask {
        File directory;

        @TaskAction
        public void write() {
            try {
                File jar = new File(directory, "heapgrowth-junit.jar");
                File natives = new File(directory, "native");
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
