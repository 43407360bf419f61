package dev.heapgrowth.junit;

import java.io.IOException;
import java.io.InputStream;
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
    /** Must equal JUNIT_API_VERSION in src/frontends/junit/exports.rs. */
    private static final int API_VERSION = 8;
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

    /**
     * Runs the growth search on the test method behind {@code callback} with the test's
     * {@code settings} ({@code key=value} strings, see {@link HeapGrowthExtension#request}, read by
     * the engine only), writes the test's reports into the report directory (and rewrites its
     * baseline section with {@code heapgrowth.updateBaseline=true}), and returns what to print
     * and throw. A setting the engine cannot use is thrown: {@link SettingsFileException} for the
     * baseline file, {@link IllegalArgumentException} for a system property's value,
     * {@link IllegalStateException} otherwise.
     */
    static native TestOutcome search(LoopCallback callback, String name, String[] settings)
            throws SettingsFileException;

    /**
     * Called by the shutdown hook: no heap dump starts after it; it waits (up to two seconds)
     * for the dump being written, then deletes the private directories of the engine, with the
     * dumps in them. A search then fails with an error.
     */
    private static native void closing();

    /** The version of the native interface the loaded library implements. */
    private static native int apiVersion();
}
