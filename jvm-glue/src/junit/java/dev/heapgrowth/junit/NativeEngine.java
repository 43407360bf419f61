package dev.heapgrowth.junit;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;

/**
 * The Rust engine ({@code libheapgrowth.so}), loaded once per JVM.
 *
 * <p>The library is {@code -Dheapgrowth.library=PATH} when set (the Gradle plugin sets it, next
 * to {@code -agentpath:} for the agent); otherwise the copy inside this jar for this platform,
 * under {@code META-INF/native/<os>-<arch>/} (a Linux x86-64 build has {@code linux-x86_64}),
 * written to a new private temporary directory (mode 0700, random name: never a predictable
 * shared path another user could plant a library in), loaded with {@link System#load}, and
 * deleted again (the mapped library stays usable). Without one, {@link #unavailable} says why.
 *
 * <p>Once loaded, a JVM shutdown hook makes the engine delete its heap dumps when the JVM ends
 * under a search (SIGTERM or SIGHUP from a cancelled build, Ctrl-C, {@code System.exit}): the
 * JVM then runs its shutdown hooks and exits, and the engine's own cleanup never runs.
 */
final class NativeEngine {
    static final String LIBRARY_PROPERTY = "heapgrowth.library";
    /** Must equal JUNIT_API_VERSION in src/frontends/junit/mod.rs. */
    private static final int API_VERSION = 7;
    /** The platforms this jar may carry an engine for, as folders of {@code META-INF/native/}. */
    private static final String NATIVE_DIR = "/META-INF/native/";
    private static final String LIBRARY = "libheapgrowth.so";

    private NativeEngine() {}

    private static volatile boolean loaded;

    static synchronized void load() throws IOException {
        if (loaded) {
            return;
        }
        String configured = System.getProperty(LIBRARY_PROPERTY);
        if (configured != null && !configured.isEmpty()) {
            System.load(Path.of(configured).toAbsolutePath().toString());
        } else {
            loadFromJar();
        }
        int version = apiVersion();
        if (version != API_VERSION) {
            throw new IOException("heapgrowth's engine library speaks version " + version
                    + " of the extension's native interface, this jar version " + API_VERSION
                    + ": the library and the jar come from different builds");
        }
        deleteDumpsAtShutdown();
        loaded = true;
    }

    /** Registers (once: {@link #load} runs once) the shutdown hook that calls {@link #closing}. */
    private static void deleteDumpsAtShutdown() {
        Thread hook = new Thread(NativeEngine::closing, "heapgrowth-delete-dumps");
        try {
            Runtime.getRuntime().addShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // The JVM is already shutting down: no search may start.
            closing();
        }
    }

    /**
     * Why no engine can be loaded in this JVM, in one line, or null when one can: no
     * {@code -Dheapgrowth.library} and no library in this jar for this JVM's platform (the jar
     * carries one folder per platform it was built on, as {@code META-INF/native/linux-x86_64/}).
     * A test cannot run then, but nothing is wrong with it: it is skipped, not failed.
     */
    static String unavailable() {
        String configured = System.getProperty(LIBRARY_PROPERTY);
        if (configured != null && !configured.isEmpty()) {
            return null;
        }
        if (NativeEngine.class.getResource(resource()) != null) {
            return null;
        }
        return "heapgrowth has no engine for " + System.getProperty("os.name", "") + "/"
                + System.getProperty("os.arch", "") + " in this jar (no " + resource().substring(1)
                + "): heap-growth test skipped";
    }

    /** The engine's resource for this JVM's platform: {@code META-INF/native/<os>-<arch>/}. */
    private static String resource() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        String osName = os.startsWith("linux") ? "linux" : os.startsWith("mac") ? "macos"
                : os.startsWith("windows") ? "windows" : os.replaceAll("[^a-z0-9]", "");
        String archName = arch.equals("amd64") || arch.equals("x86_64") ? "x86_64"
                : arch.equals("arm64") || arch.equals("aarch64") ? "aarch64" : arch.replaceAll("[^a-z0-9_]", "");
        return NATIVE_DIR + osName + "-" + archName + "/" + LIBRARY;
    }

    private static void loadFromJar() throws IOException {
        String resource = resource();
        Path dir = Files.createTempDirectory("heapgrowth-native-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path library = dir.resolve("libheapgrowth.so");
        // The finally block below deletes both; these are for a JVM that ends before it gets
        // there (a signal while the library is copied): the JVM deletes them in its shutdown
        // hooks, the file before the directory.
        dir.toFile().deleteOnExit();
        library.toFile().deleteOnExit();
        try (InputStream in = NativeEngine.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("this heapgrowth jar has no " + resource + " (built without scripts/package-java.sh?)");
            }
            Files.createFile(library,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Files.copy(in, library, StandardCopyOption.REPLACE_EXISTING);
            System.load(library.toString());
        } finally {
            Files.deleteIfExists(library);
            Files.deleteIfExists(dir);
        }
    }

    /** The library named by this JVM's {@code -agentpath:} option if it is heapgrowth's agent, else null. */
    static String agentPath() {
        for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (argument.startsWith("-agentpath:")) {
                String path = argument.substring("-agentpath:".length());
                int options = path.indexOf('=');
                if (options >= 0) {
                    path = path.substring(0, options);
                }
                if (path.contains("heapgrowth_agent")) {
                    return path;
                }
            }
        }
        return null;
    }

    /**
     * Runs the growth search on the test method behind {@code callback}. {@code settings} holds
     * warm-up, loops per snapshot, detection snapshots, confirmation loops and the time budget in
     * seconds, a negative one meaning the engine's default; {@code ignoreRules} the test's own
     * rules and {@code ignoreFile} a file of more (or null). Returns {@code [status, message,
     * fullText, json, normalized, stale, html, counts]} with status {@code clean}, {@code growing},
     * {@code inconclusive} (nothing new grows, but the search could not judge; the message says
     * why) or {@code error}, and counts {@code "NEW ACCEPTED STALE"}: growing nodes the baseline
     * lacks, growing nodes it accepts, and its blocks that no longer grow. {@code baseline} is
     * this test's accepted blocks or null; {@code agentPath}
     * the {@code -agentpath:} library or null; {@code keepDumpsDir} where to keep the last two
     * heap dumps when the test fails ({@code heapgrowth.keepDumps=failed}), or null.
     */
    static native String[] search(LoopCallback callback, String name, int[] settings, String[] ignoreRules,
            String ignoreFile, String baseline, String agentPath, String keepDumpsDir);

    /**
     * Called by the shutdown hook: no heap dump starts after it; it waits (up to two seconds)
     * for the dump being written, then deletes the private directories of the engine, with the
     * dumps in them. A search then fails with an error.
     */
    private static native void closing();

    /** The version of the native interface the loaded library implements. */
    private static native int apiVersion();

    /**
     * Writes one report file as every front end of heapgrowth writes its reports: the path is
     * checked (not a directory or a special file, not through a symbolic link another user owns,
     * in a directory that takes a new file), then a new temporary file is renamed over it.
     * Throws {@link IllegalStateException} with one line naming the file when it cannot.
     */
    static native void writeReport(String path, String text);

    /** One line on the JVMTI agent's capabilities in this JVM, or why there is no agent. */
    static native String agentStatus(String agentPath);
}
