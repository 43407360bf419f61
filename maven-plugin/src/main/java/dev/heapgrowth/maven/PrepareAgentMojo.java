package dev.heapgrowth.maven;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;

import javax.inject.Inject;

import org.apache.maven.execution.MavenSession;
import org.apache.maven.model.Dependency;
import org.apache.maven.model.Plugin;
import org.apache.maven.model.PluginExecution;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.descriptor.PluginDescriptor;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.project.MavenProject;
import org.codehaus.plexus.util.xml.Xpp3Dom;
import org.eclipse.aether.RepositorySystem;
import org.eclipse.aether.RepositorySystemSession;
import org.eclipse.aether.artifact.DefaultArtifact;
import org.eclipse.aether.resolution.ArtifactRequest;
import org.eclipse.aether.resolution.ArtifactResolutionException;

/**
 * Goal {@code prepare-agent}: starts every Surefire and Failsafe test JVM with heapgrowth's JVMTI
 * agent ({@code -agentpath:}), so a failing {@code @HeapGrowthTest} shows the stacks that grew
 * each node, and with the engine, the report directory and the settings below as system
 * properties, as the Gradle plugin does for Gradle's {@code Test} tasks.
 *
 * <p>It resolves the {@code dev.heapgrowth:heapgrowth-junit} jar the project's tests depend on
 * (the same version, from the same repositories, so the engine matches the extension the tests
 * load), writes its two native libraries to <code>${project.build.directory}/heapgrowth/native</code>
 * and puts the options in front of the property {@code argLine} (JaCoCo's prepare-agent does
 * the same): an {@code argLine} of the pom's {@code <properties>} comes after them, and a
 * Surefire <code>&lt;argLine&gt;&#64;{argLine} -Xmx1g&lt;/argLine&gt;</code> receives them at
 * <code>&#64;{argLine}</code>.
 */
// HTML code tags above: maven-plugin-tools garbles braces inside {@code}.
@Mojo(name = "prepare-agent", defaultPhase = LifecyclePhase.INITIALIZE, threadSafe = true)
public class PrepareAgentMojo extends AbstractMojo {
    static final String GROUP_ID = "dev.heapgrowth";
    static final String JUNIT_ARTIFACT_ID = "heapgrowth-junit";
    /** The test plugins that read {@code argLine}. */
    private static final List<String> TEST_PLUGINS = List.of("maven-surefire-plugin", "maven-failsafe-plugin");

    @Parameter(defaultValue = "${project}", readonly = true, required = true)
    private MavenProject project;

    @Parameter(defaultValue = "${session}", readonly = true, required = true)
    private MavenSession session;

    @Parameter(defaultValue = "${plugin}", readonly = true, required = true)
    private PluginDescriptor plugin;

    @Parameter(defaultValue = "${repositorySystemSession}", readonly = true, required = true)
    private RepositorySystemSession repositorySession;

    private final RepositorySystem repositorySystem;

    /** The property the options go into: Surefire's and Failsafe's {@code argLine}, or one of your own. */
    @Parameter(property = "heapgrowth.propertyName", defaultValue = "argLine")
    private String propertyName;

    /**
     * Every {@code @HeapGrowthTest} is reported as skipped: the property gets only
     * {@code -Dheapgrowth.skip=true} (no agent, no engine); other tests run as always.
     */
    @Parameter(property = "heapgrowth.skip", defaultValue = "false")
    private boolean skip;

    /** Where each test's text and JSON reports go ({@code heapgrowth.reportDir}). */
    @Parameter(property = "heapgrowth.reportDir", defaultValue = "${project.build.directory}/heapgrowth-reports")
    private File reportDir;

    /** The file of accepted growth paths ({@code heapgrowth.baseline}); none by default. */
    @Parameter(property = "heapgrowth.baseline")
    private File baseline;

    /** Rewrite the baseline from this run; also {@code -Dheapgrowth.updateBaseline=true}. */
    @Parameter(property = "heapgrowth.updateBaseline", defaultValue = "false")
    private boolean updateBaseline;

    /** A file of ignore rules for every test ({@code heapgrowth.ignoreFile}). */
    @Parameter(property = "heapgrowth.ignoreFile")
    private File ignoreFile;

    /** Whether heap dumps are kept: {@code never} (the extension's default) or {@code failed}. */
    @Parameter(property = "heapgrowth.keepDumps")
    private String keepDumps;

    /** Warm-up loops ({@code heapgrowth.warmup}); unset: the extension's default. */
    @Parameter(property = "heapgrowth.warmup")
    private Integer warmup;

    /** Loops between the first snapshots ({@code heapgrowth.loopsPerSnapshot}). */
    @Parameter(property = "heapgrowth.loopsPerSnapshot")
    private Integer loopsPerSnapshot;

    /** Snapshots of the search ({@code heapgrowth.maxSnapshots}). */
    @Parameter(property = "heapgrowth.maxSnapshots")
    private Integer maxSnapshots;

    /** Loops that confirm a growing path ({@code heapgrowth.confirmLoops}). */
    @Parameter(property = "heapgrowth.confirmLoops")
    private Integer confirmLoops;

    /** Seconds each test's search may take ({@code heapgrowth.timeBudget}). */
    @Parameter(property = "heapgrowth.timeBudget")
    private Integer timeBudget;

    /** JFR old-object samples instead of heap dumps, for heaps too big to dump ({@code heapgrowth.jfr}). */
    @Parameter(property = "heapgrowth.jfr")
    private Boolean jfr;

    @Inject
    public PrepareAgentMojo(RepositorySystem repositorySystem) {
        this.repositorySystem = repositorySystem;
    }

    @Override
    public void execute() throws MojoExecutionException {
        Properties properties = project.getProperties();
        // A -DargLine of the command line stands for the pom's: ours go in front of it.
        String existing = session.getUserProperties().getProperty(propertyName, properties.getProperty(propertyName));
        if (skip) {
            // The extension then reports each heap-growth test as skipped.
            properties.setProperty(propertyName, ArgLine.prepend(List.of("-Dheapgrowth.skip=true"), existing));
            getLog().info("heapgrowth: skipped: every @HeapGrowthTest is reported as skipped (-Dheapgrowth.skip=true"
                    + " in " + propertyName + ")");
            return;
        }
        String platform = NativeLibraries.unsupportedPlatform(
                System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
        if (platform != null) {
            // Set, if to nothing: an unset property leaves Surefire's @{argLine} in the command
            // line, and the test JVM does not start. The extension finds no engine for this
            // platform in its jar either, and skips each heap-growth test saying so.
            if (properties.getProperty(propertyName) == null) {
                properties.setProperty(propertyName, "");
            }
            getLog().warn("heapgrowth: no agent or engine for " + platform + " (they are built for linux-x86_64):"
                    + " every @HeapGrowthTest will be reported as skipped");
            return;
        }
        File jar = resolveJunitJar();
        NativeLibraries libraries;
        try {
            libraries = NativeLibraries.extract(jar,
                    Path.of(project.getBuild().getDirectory(), "heapgrowth", "native"));
        } catch (IOException e) {
            throw new MojoExecutionException("heapgrowth: cannot write the native libraries: " + oneLine(e), e);
        }

        String agent = "-agentpath:" + libraries.agent;
        if (ArgLine.hasAgent(existing, agent)) {
            getLog().info("heapgrowth: " + propertyName + " already starts the agent: " + existing);
            return;
        }
        String value;
        try {
            value = ArgLine.prepend(arguments(agent, libraries), existing);
        } catch (IllegalArgumentException e) {
            throw new MojoExecutionException("heapgrowth: " + e.getMessage(), e);
        }
        properties.setProperty(propertyName, value);
        getLog().info("heapgrowth: " + propertyName + " set to " + value);
        warnWhereTheOptionsGetLost();
    }

    /** The JVM options: the agent, the engine, and each setting the user set. */
    private List<String> arguments(String agent, NativeLibraries libraries) {
        List<String> arguments = new ArrayList<>();
        arguments.add(agent);
        arguments.add("-Dheapgrowth.library=" + libraries.engine);
        arguments.add("-Dheapgrowth.reportDir=" + reportDir.getAbsolutePath());
        if (baseline != null) {
            arguments.add("-Dheapgrowth.baseline=" + baseline.getAbsolutePath());
        }
        if (updateBaseline) {
            arguments.add("-Dheapgrowth.updateBaseline=true");
        }
        if (ignoreFile != null) {
            arguments.add("-Dheapgrowth.ignoreFile=" + ignoreFile.getAbsolutePath());
        }
        if (keepDumps != null && !keepDumps.isBlank()) {
            arguments.add("-Dheapgrowth.keepDumps=" + keepDumps.trim());
        }
        addNumber(arguments, "heapgrowth.warmup", warmup);
        addNumber(arguments, "heapgrowth.loopsPerSnapshot", loopsPerSnapshot);
        addNumber(arguments, "heapgrowth.maxSnapshots", maxSnapshots);
        addNumber(arguments, "heapgrowth.confirmLoops", confirmLoops);
        addNumber(arguments, "heapgrowth.timeBudget", timeBudget);
        if (Boolean.TRUE.equals(jfr)) {
            arguments.add("-Dheapgrowth.jfr=true");
        }
        return arguments;
    }

    private static void addNumber(List<String> arguments, String property, Integer value) {
        if (value != null) {
            arguments.add("-D" + property + "=" + value);
        }
    }

    /**
     * The heapgrowth-junit jar of the version the project depends on (the plugin's own version
     * when the project declares none), from the project's repositories.
     */
    private File resolveJunitJar() throws MojoExecutionException {
        String version = null;
        for (Dependency dependency : project.getDependencies()) {
            if (GROUP_ID.equals(dependency.getGroupId()) && JUNIT_ARTIFACT_ID.equals(dependency.getArtifactId())) {
                version = dependency.getVersion();
            }
        }
        if (version == null) {
            version = plugin.getVersion();
            getLog().warn("heapgrowth: the project does not depend on " + GROUP_ID + ":" + JUNIT_ARTIFACT_ID
                    + " (scope test), which @HeapGrowthTest needs; taking version " + version + " for the agent");
        }
        String coordinates = GROUP_ID + ":" + JUNIT_ARTIFACT_ID + ":jar:" + version;
        ArtifactRequest request = new ArtifactRequest(new DefaultArtifact(coordinates),
                project.getRemoteProjectRepositories(), null);
        File jar;
        try {
            jar = repositorySystem.resolveArtifact(repositorySession, request).getArtifact().getFile();
        } catch (ArtifactResolutionException e) {
            throw new MojoExecutionException("heapgrowth: cannot resolve " + coordinates + ": " + oneLine(e), e);
        }
        if (jar == null || !jar.isFile()) {
            throw new MojoExecutionException("heapgrowth: " + coordinates + " resolved to no file (" + jar + ")");
        }
        return jar;
    }

    /**
     * Warns, in one line each, where the options set above never reach a test JVM: a Surefire or
     * Failsafe {@code <argLine>} that does not name the property, or the property given on the
     * command line, which Maven prefers to the project's wherever it is read as a parameter
     * (<code>&#64;{argLine}</code> reads the project's). The model holds each
     * {@code <argLine>} as interpolated when the pom was read: a <code>${argLine}</code> still
     * there is evaluated when the test plugin runs, after this goal, and so works too.
     */
    private void warnWhereTheOptionsGetLost() {
        String late = "@{" + propertyName + "}";
        String early = "${" + propertyName + "}";
        boolean read = propertyName.equals("argLine");
        boolean readLate = false;
        Set<String> warnings = new LinkedHashSet<>();
        for (Plugin testPlugin : project.getBuildPlugins()) {
            if (!TEST_PLUGINS.contains(testPlugin.getArtifactId())) {
                continue;
            }
            List<Object> configurations = new ArrayList<>();
            configurations.add(testPlugin.getConfiguration());
            for (PluginExecution execution : testPlugin.getExecutions()) {
                configurations.add(execution.getConfiguration());
            }
            for (Object configuration : configurations) {
                Xpp3Dom argLine = configuration instanceof Xpp3Dom ? ((Xpp3Dom) configuration).getChild("argLine") : null;
                if (argLine == null || argLine.getValue() == null) {
                    continue;
                }
                String text = argLine.getValue().trim();
                readLate |= text.contains(late);
                boolean names = text.contains(late) || text.contains(early);
                read |= names;
                if (!names) {
                    warnings.add("heapgrowth: the <argLine> of " + testPlugin.getArtifactId() + " does not contain "
                            + late + ", so its test JVMs get no agent: write <argLine>" + late + " " + text
                            + "</argLine>");
                }
            }
        }
        if (!read) {
            warnings.add("heapgrowth: no <argLine> of Surefire or Failsafe contains " + late
                    + ", so the options reach no test JVM");
        }
        if (session.getUserProperties().getProperty(propertyName) != null && !readLate) {
            warnings.add("heapgrowth: -D" + propertyName + " on the command line replaces the options: give"
                    + " Surefire <argLine>" + late + "</argLine>, or put yours in the pom");
        }
        warnings.forEach(getLog()::warn);
    }

    private static String oneLine(Exception e) {
        String message = e.getMessage() == null ? e.toString() : e.getMessage();
        return message.replaceAll("\\s*\\R\\s*", " ").trim();
    }
}
