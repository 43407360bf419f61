package dev.heapgrowth.junit;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.opentest4j.TestAbortedException;

/**
 * Runs a {@link HeapGrowthTest} method as the loops of a heap-growth scenario through the Rust
 * engine, and fails the test with the engine's tree report when a path grows that the baseline
 * does not accept.
 *
 * <p>System properties (the Gradle plugin sets them from {@code heapGrowth { }}):
 * <ul>
 * <li>{@code heapgrowth.warmup}, {@code heapgrowth.loopsPerSnapshot}, {@code heapgrowth.maxSnapshots},
 *     {@code heapgrowth.confirmLoops}, {@code heapgrowth.timeBudget} (seconds)
 * <li>{@code heapgrowth.jfr=true}: JFR old-object samples instead of heap dumps, for every test
 * <li>{@code heapgrowth.ignoreFile}: a file of ignore rules, one per line, for every test
 * <li>{@code heapgrowth.reportDir}: where {@code <test>.txt}, {@code <test>.json} and the HTML
 *     report {@code <test>.html} go, with {@code index.html} listing the pages there
 *     (default {@code build/reports/heapgrowth}; under Maven Surefire or Failsafe
 *     {@code target/heapgrowth-reports})
 * <li>{@code heapgrowth.baseline}: the baseline file of accepted growth paths
 * <li>{@code heapgrowth.updateBaseline=true}: rewrite this test's section of the baseline from
 *     the current run instead of checking it
 * <li>{@code heapgrowth.library}: the engine library to load instead of the jar's copy
 * <li>{@code heapgrowth.skip=true}: every heap-growth test is reported as skipped, not run
 * </ul>
 *
 * <p>On a platform this jar has no engine for (and no {@code heapgrowth.library}), a heap-growth
 * test is skipped (a failed JUnit assumption) with one line saying why: nothing is wrong with it.
 * So is a test whose time budget ended the search before it could judge (nothing grew yet, on
 * a slow or loaded machine): passing it would call it clean.
 */
public final class HeapGrowthExtension implements InvocationInterceptor {
    /** {@code -Dheapgrowth.skip=true} reports every heap-growth test as skipped. */
    static final String SKIP_PROPERTY = "heapgrowth.skip";
    /** The baseline file gives each test a section that starts with this prefix and the test's name. */
    static final String SECTION_PREFIX = "## ";

    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> context,
            ExtensionContext extensionContext) throws Throwable {
        Method method = context.getExecutable();
        HeapGrowthTest settings = method.getAnnotation(HeapGrowthTest.class);
        if (settings == null) {
            // Registered with @ExtendWith on a class: only @HeapGrowthTest methods are looped.
            invocation.proceed();
            return;
        }
        String name = method.getDeclaringClass().getName() + "." + method.getName();
        LoopCallback callback = new LoopCallback(method, context.getTarget().orElse(null),
                context.getArguments().toArray());
        // The loops invoke the method themselves; JUnit must not run it once more.
        invocation.skip();
        if (Boolean.getBoolean(SKIP_PROPERTY)) {
            throw new TestAbortedException(SKIP_PROPERTY + "=true: heap-growth test skipped");
        }
        String unavailable = NativeEngine.unavailable();
        if (unavailable != null) {
            throw new TestAbortedException(unavailable);
        }

        NativeEngine.load();
        Path baselineFile = pathProperty("heapgrowth.baseline");
        boolean update = Boolean.getBoolean("heapgrowth.updateBaseline");
        // Read before the search in both modes: a baseline that cannot be used fails at once.
        String baselineText = baselineFile == null ? null : BaselineFile.read(baselineFile);
        String accepted = baselineText == null || update ? null : BaselineFile.section(baselineText, name);
        int[] numbers = {
            setting(settings.warmup(), "heapgrowth.warmup"),
            setting(settings.loopsPerSnapshot(), "heapgrowth.loopsPerSnapshot"),
            setting(settings.maxSnapshots(), "heapgrowth.maxSnapshots"),
            setting(settings.confirmLoops(), "heapgrowth.confirmLoops"),
            setting(settings.timeBudgetSeconds(), "heapgrowth.timeBudget"),
            settings.jfr() || Boolean.getBoolean("heapgrowth.jfr") ? 1 : 0,
        };
        Path ignoreFile = pathProperty("heapgrowth.ignoreFile");
        // A rewrite passes whatever grows: nothing to keep then.
        Path keepDumpsDir = keepDumps() && !update ? reportDir().resolve("dumps") : null;
        String[] result = NativeEngine.search(callback, name, numbers, settings.ignore(),
                ignoreFile == null ? null : ignoreFile.toString(), accepted, NativeEngine.agentPath(),
                keepDumpsDir == null ? null : keepDumpsDir.toString());
        String status = result[0];
        String message = result[1];
        String fullText = result[2];
        String json = result[3];
        String normalized = result[4];
        String stale = result[5];
        String html = result[6];
        String[] counts = result[7].split(" ");
        int newNodes = Integer.parseInt(counts[0]);
        int acceptedNodes = Integer.parseInt(counts[1]);
        int staleBlocks = Integer.parseInt(counts[2]);
        String agent = NativeEngine.agentStatus(NativeEngine.agentPath());

        StringBuilder report = new StringBuilder(fullText);
        if (!stale.isEmpty()) {
            report.append("\nBaseline paths that no longer grow (remove them from ").append(baselineFile)
                    .append("):\n\n").append(stale);
        }
        if (status.equals("clean") || status.equals("growing")) {
            String judged = update && baselineFile != null
                    ? (newNodes + acceptedNodes) + " accepted (the baseline was rewritten from this run)"
                    : baselineCounts(newNodes, acceptedNodes, staleBlocks);
            report.append('\n').append(BASELINE_LINE).append(judged).append("; ").append(baselineFile == null
                    ? "no baseline file (system property heapgrowth.baseline)" : "file " + baselineFile.toAbsolutePath())
                    .append('\n');
        }
        report.append("\nAgent: ").append(agent).append('\n');
        Path page = writeReports(name, report.toString(), json, html);
        Path textReport = page.resolveSibling(name + ".txt");
        String seePage = "\nHTML report: " + page.toAbsolutePath();

        if (callback.thrown() != null) {
            throw callback.thrown();
        }
        if (status.equals("error")) {
            throw new IllegalStateException("heapgrowth could not run " + name + ": " + message + seePage);
        }
        if (status.equals("inconclusive")) {
            // Nothing new grew, but the search could not judge (the time budget ended it too
            // early): not a pass, which would say "clean", and no baseline rewrite from it. JUnit's
            // third outcome, skipped with the reason, says what was not seen without failing a
            // build over a busy machine.
            throw new TestAbortedException(message + " (@HeapGrowthTest(timeBudgetSeconds = ...) or"
                    + " heapgrowth.timeBudget)" + seePage);
        }
        if (update && baselineFile != null) {
            BaselineFile.replaceSection(baselineFile, name, normalized);
            System.err.println("heapgrowth: baseline " + baselineFile + " updated for " + name);
            return;
        }
        if (!stale.isEmpty()) {
            System.err.println("heapgrowth: " + name + ": baseline paths no longer grow (remove them from "
                    + baselineFile + "):\n" + stale);
        }
        if (status.equals("growing")) {
            String firstLine = message.strip().lines().findFirst().orElse("heapgrowth: growing paths");
            throw new HeapGrowthFailure(message + "\n" + howToAccept(baselineFile) + "\nAgent: " + agent + seePage,
                    firstLine + " (the whole report: " + textReport.toAbsolutePath() + ")");
        }
    }

    /** The line of the text report that says how the run compares with the baseline. */
    static final String BASELINE_LINE = "Baseline: ";

    /** {@code 1 new, 2 accepted, 1 fixed (stale)}, leaving out what is none; {@code nothing grows} for all none. */
    static String baselineCounts(int newNodes, int acceptedNodes, int staleBlocks) {
        StringBuilder out = new StringBuilder();
        if (newNodes > 0) {
            out.append(newNodes).append(" new");
        }
        if (acceptedNodes > 0) {
            out.append(out.length() > 0 ? ", " : "").append(acceptedNodes).append(" accepted");
        }
        if (staleBlocks > 0) {
            out.append(out.length() > 0 ? ", " : "").append(staleBlocks).append(" fixed (stale)");
        }
        return out.length() == 0 ? "nothing grows" : out.toString();
    }

    /** What a failing test's message says about accepting the growth instead of fixing it. */
    static String howToAccept(Path baselineFile) {
        String rewrite = "run the tests once with -Dheapgrowth.updateBaseline=true (Gradle: -Pheapgrowth.updateBaseline=true)";
        if (baselineFile == null) {
            return "To accept this growth instead of fixing it, name a baseline file (system property heapgrowth.baseline;"
                    + " Gradle: heapGrowth { baseline = file('heapgrowth-baseline.txt') }; Maven plugin: <baseline>)"
                    + " and " + rewrite + ".";
        }
        return "To accept this growth instead of fixing it, " + rewrite + ": that writes it to the baseline "
                + baselineFile.toAbsolutePath() + ", to commit.";
    }

    /** The attribute if set, else the system property, else -1 (the engine's default). */
    static int setting(int attribute, String property) {
        if (attribute >= 0) {
            return attribute;
        }
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            return -1;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("system property " + property + "=" + value + " is not a number", e);
        }
    }

    private static Path pathProperty(String property) {
        String value = System.getProperty(property);
        return value == null || value.isBlank() ? null : Path.of(value);
    }

    /**
     * {@code heapgrowth.keepDumps}: {@code failed} keeps the last two heap dumps of a failing
     * test in the report directory, owner-only; {@code never} (the default) deletes them all.
     */
    private static boolean keepDumps() {
        String value = System.getProperty("heapgrowth.keepDumps", "never").trim();
        switch (value) {
            case "never":
            case "":
                return false;
            case "failed":
                return true;
            default:
                throw new IllegalArgumentException(
                        "system property heapgrowth.keepDumps=" + value + ": expected never or failed");
        }
    }

    /**
     * {@code heapgrowth.reportDir}, else where the build tool keeps reports: under Maven Surefire
     * or Failsafe {@code target/heapgrowth-reports} of the module (where the Maven plugin puts
     * them too), else Gradle's {@code build/reports/heapgrowth}.
     */
    static Path reportDir() {
        Path configured = pathProperty("heapgrowth.reportDir");
        if (configured != null) {
            return configured;
        }
        // Surefire's and Failsafe's forked JVMs have these; a Gradle test JVM has neither.
        boolean maven = System.getProperty("surefire.test.class.path") != null
                || System.getProperty("surefire.real.class.path") != null;
        if (!maven) {
            return Path.of("build", "reports", "heapgrowth");
        }
        String basedir = System.getProperty("basedir");
        return (basedir == null || basedir.isBlank() ? Path.of("target") : Path.of(basedir, "target"))
                .resolve("heapgrowth-reports");
    }

    /** Writes the test's reports and rewrites the index of the pages; returns the test's page. */
    private static Path writeReports(String name, String text, String json, String html) throws IOException {
        Path dir = reportDir();
        Files.createDirectories(dir);
        // Through the engine: checked and written as every front end writes reports.
        NativeEngine.writeReport(dir.resolve(name + ".txt").toString(), text);
        NativeEngine.writeReport(dir.resolve(name + ".json").toString(), json);
        Path page = dir.resolve(name + ".html");
        NativeEngine.writeReport(page.toString(), html);
        ReportIndex.rewrite(dir);
        return page;
    }

    /** The baseline file: one section per test, {@code ## <class>.<method>} then its normalized blocks. */
    static final class BaselineFile {
        private BaselineFile() {}

        /**
         * The text of the baseline file, or "" when it does not exist. A directory, a file that
         * is not UTF-8 or cannot be read is an error of one line naming it.
         */
        static String read(Path file) throws SettingsFileException {
            if (Files.isDirectory(file)) {
                throw new SettingsFileException("baseline file " + file + " is a directory");
            }
            if (!Files.exists(file)) {
                return "";
            }
            try {
                return decode(file, Files.readAllBytes(file));
            } catch (SettingsFileException e) {
                throw e;
            } catch (IOException e) {
                throw unreadable(file, e);
            }
        }

        /** The blocks of test {@code name} in the baseline {@code text}, or "" when it has no section. */
        static String section(String text, String name) {
            StringBuilder out = new StringBuilder();
            boolean inside = false;
            for (String line : text.split("\\R", -1)) {
                if (line.startsWith(SECTION_PREFIX)) {
                    inside = line.substring(SECTION_PREFIX.length()).trim().equals(name);
                } else if (inside) {
                    out.append(line).append('\n');
                }
            }
            return out.toString();
        }

        /**
         * {@code bytes} as UTF-8, strictly: a lenient decoding would turn a Latin-1 baseline's
         * bytes into U+FFFD, and a rewrite would save that over the other tests' sections.
         */
        static String decode(Path file, byte[] bytes) throws SettingsFileException {
            CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT);
            ByteBuffer in = ByteBuffer.wrap(bytes);
            // UTF-8 never decodes to more chars than it has bytes.
            CharBuffer out = CharBuffer.allocate(bytes.length);
            CoderResult result = decoder.decode(in, out, true);
            if (result.isError()) {
                throw new SettingsFileException("baseline file " + file + " is not UTF-8 at byte " + in.position());
            }
            decoder.flush(out);
            return out.flip().toString();
        }

        private static SettingsFileException unreadable(Path file, IOException e) {
            String reason = e instanceof FileSystemException && ((FileSystemException) e).getReason() != null
                    ? ((FileSystemException) e).getReason()
                    : e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
            return new SettingsFileException("cannot read the baseline file " + file + ": " + reason);
        }

        /** Replaces (or adds) test {@code name}'s section; removes it when {@code blocks} is empty. */
        static void replaceSection(Path file, String name, String blocks) throws IOException {
            if (Files.isDirectory(file)) {
                throw new SettingsFileException("baseline file " + file + " is a directory");
            }
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            // Several test JVMs (Gradle's maxParallelForks) may rewrite the file at once.
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE); FileLock lock = channel.lock()) {
                // Read through the locked channel: opening and closing another descriptor of
                // the file would drop the (POSIX) lock.
                ByteBuffer buffer = ByteBuffer.allocate((int) channel.size());
                while (buffer.hasRemaining() && channel.read(buffer, buffer.position()) > 0) {
                    // keep reading
                }
                // Checked again under the lock: another JVM may have written the file since.
                String old = decode(file, java.util.Arrays.copyOf(buffer.array(), buffer.position()));
                assert lock.isValid();
                StringBuilder out = new StringBuilder();
                boolean inside = false;
                for (String line : old.split("\n", -1)) {
                    if (line.startsWith(SECTION_PREFIX)) {
                        inside = line.substring(SECTION_PREFIX.length()).trim().equals(name);
                    }
                    if (!inside && !(line.isEmpty() && out.length() == 0)) {
                        out.append(line).append('\n');
                    }
                }
                String kept = out.toString().replaceAll("\n+$", "\n");
                if (kept.equals("\n")) {
                    kept = "";
                }
                if (!blocks.isEmpty()) {
                    kept = (kept.isEmpty() ? "" : kept + "\n") + SECTION_PREFIX + name + "\n" + blocks;
                }
                byte[] bytes = kept.getBytes(StandardCharsets.UTF_8);
                channel.truncate(0);
                channel.write(ByteBuffer.wrap(bytes), 0);
            }
        }
    }
}
