package dev.heapgrowth.gradle;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.util.List;
import java.util.Map;

import org.gradle.api.Project;
import org.gradle.api.Task;
import org.gradle.api.artifacts.Dependency;
import org.gradle.api.artifacts.FileCollectionDependency;
import org.gradle.api.internal.TaskInternal;
import org.gradle.api.internal.TaskOutputsInternal;
import org.gradle.api.internal.project.ProjectInternal;
import org.gradle.api.tasks.testing.Test;
import org.gradle.testfixtures.ProjectBuilder;

public class HeapGrowthPluginTest {
    private static Project javaProjectWithPlugin() {
        Project project = ProjectBuilder.builder().build();
        project.getPluginManager().apply("java");
        project.getPluginManager().apply("dev.heapgrowth");
        return project;
    }

    private static File buildDir(Project project) {
        return project.getLayout().getBuildDirectory().get().getAsFile();
    }

    private static TestJvmArguments arguments(Project project, String task) {
        return (TestJvmArguments) project.getTasks().getByName(task).getExtensions()
                .getByName(HeapGrowthPlugin.JVM_ARGUMENTS_EXTENSION);
    }

    private static HeapGrowthSettings settings(Project project) {
        return (HeapGrowthSettings) project.getExtensions().getByName("heapGrowth");
    }

    @org.junit.Test
    public void addsTheSettingsBlockAndThePrepareTask() {
        Project project = javaProjectWithPlugin();
        assertNotNull(project.getExtensions().findByName("heapGrowth"));
        assertNotNull(project.getTasks().findByName("heapGrowthPrepare"));
    }

    @org.junit.Test
    public void addsTheExtensionJarToTheTestClasspath() {
        Project project = javaProjectWithPlugin();
        File jar = new File(buildDir(project), "heapgrowth/heapgrowth-junit.jar");
        boolean found = false;
        for (Dependency dependency : project.getConfigurations().getByName("testImplementation").getDependencies()) {
            if (dependency instanceof FileCollectionDependency
                    && ((FileCollectionDependency) dependency).getFiles().getFiles().contains(jar)) {
                found = true;
            }
        }
        assertTrue("testImplementation has " + jar, found);
    }

    @org.junit.Test
    public void everyTestTaskGetsTheAgentTheEngineAndDependsOnPrepare() {
        Project project = javaProjectWithPlugin();
        project.getTasks().create("integrationTest", Test.class);
        Task prepare = project.getTasks().getByName("heapGrowthPrepare");
        for (String name : new String[] {"test", "integrationTest"}) {
            List<String> jvm = arguments(project, name).asArguments();
            File agent = new File(buildDir(project), "heapgrowth/native/libheapgrowth_agent.so");
            assertTrue(jvm.toString(), jvm.contains("-agentpath:" + agent.getAbsolutePath()));
            File engine = new File(buildDir(project), "heapgrowth/native/libheapgrowth.so");
            assertTrue(jvm.toString(), jvm.contains("-Dheapgrowth.library=" + engine.getAbsolutePath()));
            assertTrue(project.getTasks().getByName(name).getDependsOn().contains(prepare));
        }
    }

    @org.junit.Test
    public void settingsBecomeJvmArgumentsWhenTheTaskRuns() {
        Project project = javaProjectWithPlugin();
        HeapGrowthSettings settings = settings(project);
        // Set after the plugin configured the task: the values are read lazily.
        settings.setMaxSnapshots(7);
        settings.setConfirmLoops(400);
        settings.setIgnoreFile(project.file("ignore.txt"));
        settings.setBaseline(project.file("accepted.txt"));
        settings.setKeepDumps("failed");
        settings.setJfr(true);
        List<String> jvm = arguments(project, "test").asArguments();
        assertTrue(jvm.toString(), jvm.contains("-Dheapgrowth.jfr=true"));
        assertTrue(jvm.toString(), jvm.contains("-Dheapgrowth.maxSnapshots=7"));
        assertTrue(jvm.contains("-Dheapgrowth.keepDumps=failed"));
        assertTrue(jvm.contains("-Dheapgrowth.confirmLoops=400"));
        assertTrue(jvm.contains("-Dheapgrowth.ignoreFile=" + project.file("ignore.txt").getAbsolutePath()));
        assertTrue(jvm.contains("-Dheapgrowth.baseline=" + project.file("accepted.txt").getAbsolutePath()));
        assertTrue(jvm.contains("-Dheapgrowth.reportDir="
                + new File(buildDir(project), "reports/heapgrowth").getAbsolutePath()));
        for (String argument : jvm) {
            assertFalse("unset settings keep the extension's defaults: " + argument,
                    argument.startsWith("-Dheapgrowth.warmup=") || argument.startsWith("-Dheapgrowth.timeBudget=")
                            || argument.startsWith("-Dheapgrowth.updateBaseline="));
        }
        // Unset, keepDumps and jfr are not passed: the extension keeps nothing and dumps heaps.
        for (String argument : arguments(javaProjectWithPlugin(), "test").asArguments()) {
            assertFalse(argument, argument.startsWith("-Dheapgrowth.keepDumps="));
            assertFalse(argument, argument.startsWith("-Dheapgrowth.jfr="));
        }
    }

    /** Issue 12: an emptied baseline left `:test UP-TO-DATE`. */
    @org.junit.Test
    public void theSettingsTheBaselineAndTheIgnoreFilesAreInputsOfTheTestTask() {
        Project project = javaProjectWithPlugin();
        HeapGrowthSettings settings = settings(project);
        settings.setMaxSnapshots(7);
        settings.setIgnoreFile(project.file("ignore.txt"));
        settings.setBaseline(project.file("accepted.txt"));
        Test test = (Test) project.getTasks().getByName("test");
        Map<String, Object> properties = test.getInputs().getProperties();
        assertEquals("{heapgrowth.maxSnapshots=7}", String.valueOf(properties.get("heapGrowth.settings")));
        for (String absolute : new String[] {"accepted.txt", "ignore.txt", "heapgrowth-ignore.txt"}) {
            assertTrue(absolute, test.getInputs().getFiles().getFiles().contains(project.file(absolute)));
        }
        for (Object value : properties.values()) {
            assertFalse("no absolute path among the input values: " + value,
                    String.valueOf(value).contains(project.getProjectDir().getPath()));
        }
    }

    /** The engine reads heapgrowth-ignore.txt from the test JVM's working directory. */
    @org.junit.Test
    public void theProjectIgnoreFileInputFollowsTheWorkingDirectory() {
        Project project = javaProjectWithPlugin();
        Test test = (Test) project.getTasks().getByName("test");
        test.setWorkingDir(project.file("elsewhere"));
        assertTrue(test.getInputs().getFiles().getFiles().contains(project.file("elsewhere/heapgrowth-ignore.txt")));
    }

    @org.junit.Test
    public void theGradlePropertyAsksForABaselineRewriteThatIsNeverUpToDate() {
        Project project = javaProjectWithPlugin();
        TestJvmArguments arguments = arguments(project, "test");
        assertFalse(arguments.isUpdateBaseline());
        project.getExtensions().getExtraProperties().set("heapgrowth.updateBaseline", "true");
        assertTrue(arguments.asArguments().contains("-Dheapgrowth.updateBaseline=true"));
        Test test = (Test) project.getTasks().getByName("test");
        assertFalse(((TaskOutputsInternal) test.getOutputs()).getUpToDateSpec().isSatisfiedBy((TaskInternal) test));
    }

    @org.junit.Test
    public void aReportDirAndTheUpdateFlagCanBeSetInTheBlock() {
        Project project = javaProjectWithPlugin();
        settings(project).setReportDir(project.file("elsewhere"));
        settings(project).setUpdateBaseline(true);
        List<String> jvm = arguments(project, "test").asArguments();
        assertTrue(jvm.contains("-Dheapgrowth.reportDir=" + project.file("elsewhere").getAbsolutePath()));
        assertTrue(jvm.contains("-Dheapgrowth.updateBaseline=true"));
    }

    @org.junit.Test
    public void skipPassesOnlyTheSkipPropertyAndIsAnInput() {
        for (boolean fromTheBlock : new boolean[] {true, false}) {
            Project project = javaProjectWithPlugin();
            settings(project).setMaxSnapshots(7);
            if (fromTheBlock) {
                settings(project).setSkip(true);
            } else {
                project.getExtensions().getExtraProperties().set("heapgrowth.skip", "true");
            }
            TestJvmArguments arguments = arguments(project, "test");
            assertEquals(java.util.Collections.singletonList("-Dheapgrowth.skip=true"), arguments.asArguments());
            Test test = (Test) project.getTasks().getByName("test");
            assertEquals("{heapgrowth.skip=true}", String.valueOf(test.getInputs().getProperties().get("heapGrowth.settings")));
        }
    }

    @org.junit.Test
    public void noAgentOnAPlatformTheLibrariesAreNotBuiltFor() {
        assertTrue(TestJvmArguments.librariesRunOn("Linux", "amd64"));
        assertFalse(TestJvmArguments.librariesRunOn("Mac OS X", "aarch64"));
        assertFalse(TestJvmArguments.librariesRunOn("Linux", "aarch64"));
        assertFalse(TestJvmArguments.librariesRunOn("Windows 11", "amd64"));
    }
}
