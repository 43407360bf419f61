package dev.heapgrowth.junit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Golden outputs of the JUnit extension's Java-side logic (issue 31), captured once
 * from the unchanged Java by {@code capture.sh}: the Rust ports ({@code src/report/baseline.rs},
 * {@code src/report/index_page.rs}, {@code src/frontends/junit/baseline_file.rs} and
 * {@code outcome.rs}) must give the same bytes. In package {@code dev.heapgrowth.junit} to call
 * the extension's package-private statics.
 *
 * <p>Arguments: the cases directory, the expected directory (written), a scratch directory
 * (files the cases need; its path is shown as {@code <scratch>} in the outputs). Run with
 * {@code -Duser.dir=/golden/cwd}: every relative path's absolute form starts there.
 *
 * <p>Cases and most outputs are one record a line, in one escaped form (see {@link #unescape}
 * and {@link #escape}) so that {@code \r}, U+2028 or a Latin-1 byte are visible and survive git;
 * the Rust tests decode and encode the same form. {@code index.html} pages are written as they are.
 */
final class Golden {
    private Golden() {}

    private static Path scratch;

    public static void main(String[] args) throws Exception {
        Path cases = Path.of(args[0]);
        Path expected = Path.of(args[1]);
        scratch = Path.of(args[2]);
        Files.createDirectories(expected);
        Files.createDirectories(scratch);
        baseline(cases.resolve("baseline"), expected);
        index(cases.resolve("index"), expected.resolve("index"));
        outcome(cases, expected);
        paths(cases, expected);
    }

    // ---- the baseline format and file -------------------------------------------------------

    private static void baseline(Path cases, Path expected) throws IOException {
        List<String[]> texts = records(cases.resolve("texts.txt"), 2);
        List<String[]> names = records(cases.resolve("names.txt"), 1);

        StringBuilder section = new StringBuilder();
        for (String[] text : texts) {
            String decoded;
            try {
                decoded = HeapGrowthExtension.BaselineFile.decode(Path.of("-"), unescape(text[1]));
            } catch (SettingsFileException e) {
                // section() takes the text read() decoded: never one that is not UTF-8.
                section.append(text[0]).append("\tnot UTF-8\n");
                continue;
            }
            for (String[] name : names) {
                String n = string(name[0]);
                section.append(text[0]).append('\t').append(escape(n)).append('\t')
                        .append(escape(HeapGrowthExtension.BaselineFile.section(decoded, n))).append('\n');
            }
        }
        write(expected.resolve("section.txt"), section.toString());

        // replaceSection on a real file, as the extension calls it.
        List<String[]> replacements = records(cases.resolve("replace.txt"), 2);
        StringBuilder replaced = new StringBuilder();
        Path file = scratch.resolve("replace").resolve("heapgrowth-baseline.txt");
        for (String[] text : texts) {
            for (String[] replacement : replacements) {
                Files.createDirectories(file.getParent());
                Files.write(file, unescape(text[1]));
                String name = string(replacement[0]);
                String blocks = string(replacement[1]);
                String result;
                try {
                    HeapGrowthExtension.BaselineFile.replaceSection(file, name, blocks);
                    result = "ok\t" + escape(new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
                } catch (SettingsFileException e) {
                    result = "error\t" + escape(scrubbed(e.getMessage()));
                }
                replaced.append(text[0]).append('\t').append(replacement[0]).append('\t')
                        .append(replacement[1]).append('\t').append(result).append('\n');
            }
        }
        // A missing file (and its missing directories) is created.
        Path fresh = scratch.resolve("fresh").resolve("sub//dir").resolve("baseline.txt");
        HeapGrowthExtension.BaselineFile.replaceSection(fresh, "a.B.c", "x\n");
        replaced.append("missing\ta.B.c\tx\\n\tok\t")
                .append(escape(new String(Files.readAllBytes(fresh), StandardCharsets.UTF_8))).append('\n');
        write(expected.resolve("replace_section.txt"), replaced.toString());

        // decode: the strict UTF-8 check and its byte position.
        StringBuilder decode = new StringBuilder();
        for (String[] bytes : records(cases.resolve("decode.txt"), 2)) {
            String result;
            try {
                result = "ok\t" + escape(HeapGrowthExtension.BaselineFile.decode(Path.of("heapgrowth-baseline.txt"),
                        unescape(bytes[1])));
            } catch (SettingsFileException e) {
                result = "error\t" + escape(e.getMessage());
            }
            decode.append(bytes[0]).append('\t').append(result).append('\n');
        }
        write(expected.resolve("decode.txt"), decode.toString());

        // read: a directory, a missing file, the decoding, as paths display.
        Path reads = scratch.resolve("read");
        Files.createDirectories(reads.resolve("a directory"));
        Files.write(reads.resolve("utf8.txt"), "## a.B.c\nx\n".getBytes(StandardCharsets.UTF_8));
        Files.write(reads.resolve("latin1.txt"), new byte[] {'#', '#', ' ', 'a', '\n', (byte) 0xe9, '\n'});
        Files.write(reads.resolve("empty.txt"), new byte[0]);
        Files.createSymbolicLink(reads.resolve("loop"), reads.resolve("loop"));
        Files.createSymbolicLink(reads.resolve("link to directory"), reads.resolve("a directory"));
        StringBuilder read = new StringBuilder();
        for (String path : new String[] {"a directory", "a directory/", "link to directory", "missing.txt",
                "missing/dir/x.txt", "utf8.txt", "latin1.txt", "empty.txt", "loop", "utf8.txt/x"}) {
            String result;
            try {
                result = "ok\t" + escape(HeapGrowthExtension.BaselineFile.read(Path.of(reads + "//" + path)));
            } catch (SettingsFileException e) {
                result = "error\t" + escape(scrubbed(e.getMessage()));
            }
            read.append(escape(path)).append('\t').append(result).append('\n');
        }
        write(expected.resolve("read.txt"), read.toString());

        StringBuilder counts = new StringBuilder();
        for (int n : new int[] {0, 1, 12}) {
            for (int a : new int[] {0, 1, 3}) {
                for (int s : new int[] {0, 1, 2}) {
                    counts.append(n).append(' ').append(a).append(' ').append(s).append('\t')
                            .append(HeapGrowthExtension.baselineCounts(n, a, s)).append('\n');
                }
            }
        }
        write(expected.resolve("baseline_counts.txt"), counts.toString());
    }

    // ---- index.html -------------------------------------------------------------------------

    /**
     * Each case is a directory's files, one a line: {@code page MILLIS NAME} (NAME.html, modified
     * at MILLIS since the epoch), {@code dir NAME} (a directory), {@code link NAME TARGET} (a
     * symbolic link), {@code file NAME CONTENT}, {@code repeat NAME COUNT CONTENT} (appended COUNT times); escaped, and NAME has no space but in the last field.
     */
    private static void index(Path cases, Path expected) throws IOException {
        Files.createDirectories(expected);
        List<Path> files;
        try (Stream<Path> list = Files.list(cases)) {
            files = list.sorted(Comparator.comparing(Path::toString)).toList();
        }
        for (Path caseFile : files) {
            String id = caseFile.getFileName().toString().replaceAll("\\.txt$", "");
            Path dir = scratch.resolve("index").resolve(id);
            Files.createDirectories(dir);
            for (String line : Files.readAllLines(caseFile, StandardCharsets.UTF_8)) {
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                String[] fields = line.split(" ", 3);
                switch (fields[0]) {
                    case "page": {
                        Path page = dir.resolve(string(fields[2]) + ".html");
                        Files.write(page, "<html></html>\n".getBytes(StandardCharsets.UTF_8));
                        Files.setLastModifiedTime(page, FileTime.fromMillis(Long.parseLong(fields[1])));
                        break;
                    }
                    case "dir":
                        Files.createDirectories(dir.resolve(string(fields[1])));
                        break;
                    case "link":
                        Files.createSymbolicLink(dir.resolve(string(fields[1])), Path.of(string(fields[2])));
                        break;
                    case "file":
                        Files.write(dir.resolve(string(fields[1])), unescape(fields[2]));
                        break;
                    case "repeat": {
                        String[] more = fields[2].split(" ", 2);
                        byte[] unit = unescape(more[1]);
                        for (int i = Integer.parseInt(more[0]); i > 0; i--) {
                            Files.write(dir.resolve(string(fields[1])), unit, StandardOpenOption.CREATE,
                                    StandardOpenOption.APPEND);
                        }
                        break;
                    }
                    default:
                        throw new IllegalArgumentException(caseFile + ": " + line);
                }
            }
            write(expected.resolve(id + ".html"), ReportIndex.render(dir));
        }
        StringBuilder encode = new StringBuilder();
        for (String name : new String[] {"a.B.c.html", "a b<c>&\"'.html", "caf\u00e9 \uff5e\ud83d\ude00.html",
                "x/y?z#%.html", "-._~!$()*+,;=:@"}) {
            encode.append(escape(name)).append('\t').append(ReportIndex.encode(name)).append('\t')
                    .append(escape(ReportIndex.escape(name))).append('\n');
        }
        write(expected.resolve("encode_escape.txt"), encode.toString());
    }

    // ---- the text report, the messages and notices of interceptTestMethod --------------------

    /**
     * Each case: id, status, update (true/false), baseline path (- for none), report directory,
     * test name, fullText, message, stale, counts (new accepted stale), agent line.
     */
    private static void outcome(Path cases, Path expected) throws IOException {
        StringBuilder out = new StringBuilder();
        for (String[] c : records(cases.resolve("outcome.txt"), 11)) {
            String status = string(c[1]);
            boolean update = Boolean.parseBoolean(c[2]);
            Path baselineFile = c[3].equals("-") ? null : Path.of(string(c[3]));
            Path dir = Path.of(string(c[4]));
            String name = string(c[5]);
            String fullText = string(c[6]);
            String message = string(c[7]);
            String stale = string(c[8]);
            String[] counts = string(c[9]).split(" ");
            String agent = string(c[10]);
            for (String line : intercept(status, update, baselineFile, dir, name, fullText, message, stale, counts,
                    agent)) {
                out.append(c[0]).append('\t').append(line).append('\n');
            }
        }
        write(expected.resolve("outcome.txt"), out.toString());
    }

    /**
     * HeapGrowthExtension.interceptTestMethod from the search's result on, copied verbatim; the
     * report files are not written (the text report is returned), what is printed and thrown
     * is returned as records: {@code text}, {@code notice}, {@code IllegalStateException},
     * {@code TestAbortedException}, {@code HeapGrowthFailure} and {@code summary}, and
     * {@code rewrite} when the baseline would be rewritten.
     */
    private static List<String> intercept(String status, boolean update, Path baselineFile, Path dir, String name,
            String fullText, String message, String stale, String[] counts, String agent) {
        List<String> records = new ArrayList<>();
        int newNodes = Integer.parseInt(counts[0]);
        int acceptedNodes = Integer.parseInt(counts[1]);
        int staleBlocks = Integer.parseInt(counts[2]);

        // ---- verbatim from interceptTestMethod (writeReports replaced by dir.resolve) ----
        StringBuilder report = new StringBuilder(fullText);
        if (!stale.isEmpty()) {
            report.append("\nBaseline paths that no longer grow (remove them from ").append(baselineFile)
                    .append("):\n\n").append(stale);
        }
        if (status.equals("clean") || status.equals("growing")) {
            String judged = update && baselineFile != null
                    ? (newNodes + acceptedNodes) + " accepted (the baseline was rewritten from this run)"
                    : HeapGrowthExtension.baselineCounts(newNodes, acceptedNodes, staleBlocks);
            report.append('\n').append(HeapGrowthExtension.BASELINE_LINE).append(judged).append("; ")
                    .append(baselineFile == null
                    ? "no baseline file (system property heapgrowth.baseline)" : "file " + baselineFile.toAbsolutePath())
                    .append('\n');
        }
        report.append("\nAgent: ").append(agent).append('\n');
        records.add("text\t" + escape(report.toString()));
        Path page = dir.resolve(name + ".html");
        Path textReport = page.resolveSibling(name + ".txt");
        String seePage = "\nHTML report: " + page.toAbsolutePath();

        if (status.equals("error")) {
            records.add("IllegalStateException\t"
                    + escape("heapgrowth could not run " + name + ": " + message + seePage));
            return records;
        }
        if (status.equals("inconclusive")) {
            records.add("TestAbortedException\t" + escape(message + " (@HeapGrowthTest(timeBudgetSeconds = ...) or"
                    + " heapgrowth.timeBudget)" + seePage));
            return records;
        }
        if (update && baselineFile != null) {
            records.add("rewrite\t" + escape(baselineFile.toString()));
            records.add("notice\t" + escape("heapgrowth: baseline " + baselineFile + " updated for " + name));
            return records;
        }
        if (!stale.isEmpty()) {
            records.add("notice\t" + escape("heapgrowth: " + name + ": baseline paths no longer grow (remove them from "
                    + baselineFile + "):\n" + stale));
        }
        if (status.equals("growing")) {
            String firstLine = message.strip().lines().findFirst().orElse("heapgrowth: growing paths");
            records.add("HeapGrowthFailure\t" + escape(message + "\n" + HeapGrowthExtension.howToAccept(baselineFile)
                    + "\nAgent: " + agent + seePage));
            records.add("summary\t" + escape(firstLine + " (the whole report: " + textReport.toAbsolutePath() + ")"));
        }
        return records;
    }

    // ---- paths: Path.of display, toAbsolutePath, howToAccept, reportDir ----------------------

    private static void paths(Path cases, Path expected) throws IOException {
        StringBuilder out = new StringBuilder();
        for (String[] p : records(cases.resolve("paths.txt"), 1)) {
            Path path = Path.of(string(p[0]));
            out.append(p[0]).append('\t').append(escape(path.toString())).append('\t')
                    .append(escape(path.toAbsolutePath().toString())).append('\t')
                    .append(escape(HeapGrowthExtension.howToAccept(path))).append('\n');
        }
        out.append("-\t-\t-\t").append(escape(HeapGrowthExtension.howToAccept(null))).append('\n');
        write(expected.resolve("paths.txt"), out.toString());

        // Each case: the system properties set (name=value, escaped, space-separated; - for none).
        StringBuilder dirs = new StringBuilder();
        String[] properties = {"heapgrowth.reportDir", "surefire.test.class.path", "surefire.real.class.path",
            "basedir"};
        for (String[] c : records(cases.resolve("report_dir.txt"), 1)) {
            for (String property : properties) {
                System.clearProperty(property);
            }
            if (!c[0].equals("-")) {
                for (String pair : c[0].split(" ")) {
                    String[] kv = string(pair).split("=", 2);
                    System.setProperty(kv[0], kv[1]);
                }
            }
            dirs.append(c[0]).append('\t').append(escape(HeapGrowthExtension.reportDir().toString())).append('\n');
        }
        for (String property : properties) {
            System.clearProperty(property);
        }
        write(expected.resolve("report_dir.txt"), dirs.toString());
    }

    // ---- the escaped form --------------------------------------------------------------------

    /** Lines of {@code file} that are not empty or {@code #} comments, split at tabs into {@code n} fields. */
    private static List<String[]> records(Path file, int n) throws IOException {
        List<String[]> out = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] fields = line.split("\t", -1);
            if (fields.length != n) {
                throw new IllegalArgumentException(file + ": expected " + n + " fields: " + line);
            }
            out.add(fields);
        }
        return out;
    }

    /**
     * The bytes an escaped field stands for: {@code \\}, {@code \n}, {@code \r}, {@code \t},
     * {@code \\u{HEX}} (a code point, as UTF-8), {@code \xHH} (one raw byte); other characters as UTF-8.
     */
    static byte[] unescape(String text) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < text.length();) {
            int c = text.codePointAt(i);
            if (c != '\\') {
                out.writeBytes(new String(Character.toChars(c)).getBytes(StandardCharsets.UTF_8));
                i += Character.charCount(c);
                continue;
            }
            char kind = text.charAt(i + 1);
            switch (kind) {
                case '\\': out.write('\\'); i += 2; break;
                case 'n': out.write('\n'); i += 2; break;
                case 'r': out.write('\r'); i += 2; break;
                case 't': out.write('\t'); i += 2; break;
                case 'x':
                    out.write(Integer.parseInt(text.substring(i + 2, i + 4), 16));
                    i += 4;
                    break;
                case 'u': {
                    int end = text.indexOf('}', i);
                    int code = Integer.parseInt(text.substring(i + 3, end), 16);
                    out.writeBytes(new String(Character.toChars(code)).getBytes(StandardCharsets.UTF_8));
                    i = end + 1;
                    break;
                }
                default:
                    throw new IllegalArgumentException("bad escape in " + text);
            }
        }
        return out.toByteArray();
    }

    private static String string(String escaped) {
        return new String(unescape(escaped), StandardCharsets.UTF_8);
    }

    /** {@code text} in the escaped form: printable ASCII as it is, but {@code \}. */
    static String escape(String text) {
        StringBuilder out = new StringBuilder();
        text.codePoints().forEach(c -> {
            if (c == '\\') {
                out.append("\\\\");
            } else if (c == '\n') {
                out.append("\\n");
            } else if (c == '\r') {
                out.append("\\r");
            } else if (c == '\t') {
                out.append("\\t");
            } else if (c >= 0x20 && c < 0x7f) {
                out.appendCodePoint(c);
            } else {
                out.append("\\u{").append(Integer.toHexString(c).toUpperCase()).append('}');
            }
        });
        return out.toString();
    }

    /** The scratch directory's path as {@code <scratch>}: it differs between machines. */
    private static String scrubbed(String message) {
        return message.replace(scratch.toString(), "<scratch>");
    }

    private static void write(Path file, String text) throws IOException {
        Files.write(file, text.getBytes(StandardCharsets.UTF_8));
    }
}
