package dev.heapgrowth.junit;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * {@code index.html} of the report directory: a link to every test's HTML report there (the
 * engine renders each page; this only lists them), with the first line of the test's text report
 * and when the page was written. Rewritten after each test from the directory's listing, so the
 * test JVMs that share a report directory (Gradle's {@code maxParallelForks}) all appear; a page
 * left by an earlier run shows its older time.
 */
final class ReportIndex {
    static final String INDEX = "index.html";
    private static final String PAGE_SUFFIX = ".html";
    /** Held while the index is rewritten, by every test JVM that writes into the directory. */
    private static final String LOCK = ".heapgrowth-index.lock";

    private ReportIndex() {}

    /** Rewrites {@code dir/index.html} from the pages in {@code dir}. */
    static void rewrite(Path dir) throws IOException {
        // One thread of this JVM at a time (parallel JUnit tests): a JVM cannot lock a file twice.
        synchronized (ReportIndex.class) {
            try (FileChannel channel = FileChannel.open(dir.resolve(LOCK), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE); FileLock lock = channel.lock()) {
                assert lock.isValid();
                writeAtomically(dir.resolve(INDEX), render(dir));
            }
        }
    }

    /** The index page for the pages now in {@code dir}. */
    static String render(Path dir) throws IOException {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> pages = Files.newDirectoryStream(dir, "*" + PAGE_SUFFIX)) {
            for (Path page : pages) {
                String file = page.getFileName().toString();
                if (!file.equals(INDEX) && Files.isRegularFile(page)) {
                    names.add(file.substring(0, file.length() - PAGE_SUFFIX.length()));
                }
            }
        }
        Collections.sort(names);
        StringBuilder rows = new StringBuilder();
        for (String name : names) {
            Instant written = Files.getLastModifiedTime(dir.resolve(name + PAGE_SUFFIX)).toInstant()
                    .truncatedTo(ChronoUnit.SECONDS);
            rows.append("<tr><td><a href=\"./").append(escape(encode(name + PAGE_SUFFIX))).append("\">")
                    .append(escape(name)).append("</a></td><td>").append(escape(summary(dir, name)))
                    .append("</td><td>").append(written).append("</td></tr>\n");
        }
        return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                + "<title>heapgrowth: " + names.size() + " test report" + (names.size() == 1 ? "" : "s") + "</title>\n"
                + "<style>body{font:15px/1.45 system-ui,sans-serif;margin:0}main{max-width:62rem;margin:0 auto;"
                + "padding:0.75rem}table{border-collapse:collapse;display:block;overflow-x:auto}"
                + "td,th{border:1px solid #ccc;padding:0.2rem 0.5rem;text-align:left;overflow-wrap:anywhere}</style>\n"
                + "</head>\n<body>\n<main>\n<h1>heapgrowth reports</h1>\n"
                + "<p>One page per test that ran with heapgrowth, rewritten after each test; each test also has "
                + "its text (.txt) and JSON (.json) report beside its page.</p>\n"
                + "<table>\n<tr><th>test</th><th>report</th><th>page written (UTC)</th></tr>\n" + rows
                + "</table>\n</main>\n</body>\n</html>\n";
    }

    /**
     * The first line of the test's text report ({@code Scenario <test>: 1 growing node after 1000
     * loops in 7 snapshots}) without the scenario's name, or "" when there is none.
     */
    private static String summary(Path dir, String name) {
        Path text = dir.resolve(name + ".txt");
        try (var lines = Files.lines(text, StandardCharsets.UTF_8)) {
            String first = lines.findFirst().orElse("");
            String prefix = "Scenario " + name + ": ";
            return first.startsWith(prefix) ? first.substring(prefix.length()) : first;
        } catch (IOException | java.io.UncheckedIOException e) {
            return "";
        }
    }

    /** Writes {@code file} through the engine, as every report file is ({@link NativeEngine#writeReport}). */
    static void writeAtomically(Path file, String text) {
        NativeEngine.writeReport(file.toString(), text);
    }

    /** A file name as a relative URL: every byte but unreserved ASCII percent-encoded. */
    static String encode(String file) {
        StringBuilder out = new StringBuilder();
        for (byte b : file.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || "-._~".indexOf(c) >= 0) {
                out.append(c);
            } else {
                out.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return out.toString();
    }

    /** Text for HTML content and attribute values. */
    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            switch (c) {
                case '&': out.append("&amp;"); break;
                case '<': out.append("&lt;"); break;
                case '>': out.append("&gt;"); break;
                case '"': out.append("&quot;"); break;
                case '\'': out.append("&#39;"); break;
                default: out.append(c);
            }
        }
        return out.toString();
    }
}
