package dev.heapgrowth.gradle;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.util.Map;

import org.gradle.api.Project;
import org.gradle.api.artifacts.Dependency;
import org.gradle.api.artifacts.FileCollectionDependency;
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

    @org.junit.Test
    public void addsTheSettingsBlockAndThePrepareTask() {
        Project project = javaProjectWithPlugin();
        assertNotNull(project.getExtensions().findByName("heapGrowth"));
        assertNotNull(project.getTasks().findByName("heapGrowthPrepare"));
    }

    @org.junit.Test
    public void addsTheExtensionJarToTheTestClasspath() {
        Project project = javaProjectWithPlugin();
        File jar = new File(project.getBuildDir(), "heapgrowth/heapgrowth-junit.jar");
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
        Test extra = project.getTasks().create("integrationTest", Test.class);
        for (Test test : new Test[] {(Test) project.getTasks().getByName("test"), extra}) {
            File agent = new File(project.getBuildDir(), "heapgrowth/native/libheapgrowth_agent.so");
            assertTrue(test.getAllJvmArgs().contains("-agentpath:" + agent.getAbsolutePath()));
            assertEquals(new File(project.getBuildDir(), "heapgrowth/native/libheapgrowth.so").getAbsolutePath(),
                    test.getSystemProperties().get("heapgrowth.library"));
            assertTrue(test.getDependsOn().contains(project.getTasks().getByName("heapGrowthPrepare")));
        }
    }

    @org.junit.Test
    public void settingsBecomeSystemPropertiesAfterEvaluation() {
        Project project = javaProjectWithPlugin();
        HeapGrowthSettings settings = (HeapGrowthSettings) project.getExtensions().getByName("heapGrowth");
        settings.setMaxSnapshots(7);
        settings.setConfirmLoops(400);
        settings.setIgnoreFile(project.file("ignore.txt"));
        settings.setBaseline(project.file("accepted.txt"));
        ((ProjectInternal) project).evaluate();
        Map<String, Object> properties = ((Test) project.getTasks().getByName("test")).getSystemProperties();
        assertEquals("7", properties.get("heapgrowth.maxSnapshots"));
        assertEquals("400", properties.get("heapgrowth.confirmLoops"));
        assertEquals(project.file("ignore.txt").getAbsolutePath(), properties.get("heapgrowth.ignoreFile"));
        assertFalse(properties.containsKey("heapgrowth.timeBudget"));
        assertEquals(project.file("accepted.txt").getAbsolutePath(), properties.get("heapgrowth.baseline"));
        assertEquals(new File(project.getBuildDir(), "reports/heapgrowth").getAbsolutePath(),
                properties.get("heapgrowth.reportDir"));
        assertFalse("unset settings keep the extension's defaults", properties.containsKey("heapgrowth.warmup"));
        assertFalse(properties.containsKey("heapgrowth.updateBaseline"));
    }

    @org.junit.Test
    public void theGradlePropertyAsksForABaselineRewrite() {
        Project project = javaProjectWithPlugin();
        project.getExtensions().getExtraProperties().set("heapgrowth.updateBaseline", "true");
        ((ProjectInternal) project).evaluate();
        assertEquals("true",
                ((Test) project.getTasks().getByName("test")).getSystemProperties().get("heapgrowth.updateBaseline"));
    }
}
