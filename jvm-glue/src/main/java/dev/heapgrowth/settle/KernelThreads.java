package dev.heapgrowth.settle;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * The kernel's view of this process's threads, from {@code /proc/self/task} (Linux): which are
 * running or ready to run. Java's thread state cannot tell a parked thread that was just
 * unparked, and waits for a CPU, from one that waits for work: both read WAITING until the
 * thread runs again. The kernel has the first in state {@code R}.
 *
 * <p>Threads are matched by name: HotSpot gives each Java thread's native thread its Java name,
 * which the kernel keeps to its first 15 bytes. Threads whose names agree there are taken
 * together (one of them ready to run makes each busy); that costs a wait, never a dump taken
 * too early. Where there is no {@code /proc} (not Linux), nothing is known to be ready to run
 * and the settler goes by Java's thread states alone.
 */
final class KernelThreads {
    /** Linux keeps a thread's name in 16 bytes, the last a NUL. */
    private static final int KERNEL_NAME_BYTES = 15;
    private static final Path TASKS = Paths.get("/proc/self/task");
    private static final Path THIS_THREAD = Paths.get("/proc/thread-self");

    private KernelThreads() {}

    /**
     * The kernel names of this process's threads that are running or ready to run, but for the
     * calling thread's own (it is running, reading them). Empty where {@code /proc} cannot tell.
     */
    static Set<String> readyToRun() {
        Set<String> names = new HashSet<>();
        String self;
        try {
            self = Files.readSymbolicLink(THIS_THREAD).getFileName().toString();
        } catch (IOException | UnsupportedOperationException | SecurityException noProc) {
            return names;
        }
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                if (task.getFileName().toString().equals(self)) {
                    continue;
                }
                String name = nameIfReadyToRun(task.resolve("stat"));
                if (name != null) {
                    names.add(name);
                }
            }
        } catch (IOException | SecurityException noProc) {
            names.clear();
        }
        return names;
    }

    /** The name a thread has in the kernel: its Java name's first 15 bytes, as Latin-1 text. */
    static String kernelName(Thread thread) {
        byte[] name = thread.getName().getBytes(StandardCharsets.UTF_8);
        return new String(Arrays.copyOf(name, Math.min(name.length, KERNEL_NAME_BYTES)),
                StandardCharsets.ISO_8859_1);
    }

    /**
     * The name in a task's {@code stat} line, {@code "tid (name) state ..."}, if its state is
     * {@code R}; null otherwise, and for a thread that ended since the directory was listed. The
     * name may hold spaces and parentheses: it ends at the line's last ')'.
     */
    private static String nameIfReadyToRun(Path stat) {
        String line;
        try {
            line = new String(Files.readAllBytes(stat), StandardCharsets.ISO_8859_1);
        } catch (IOException ended) {
            return null;
        }
        int open = line.indexOf('(');
        int close = line.lastIndexOf(')');
        boolean ready = open >= 0 && close > open && close + 2 < line.length()
                && line.charAt(close + 2) == 'R';
        return ready ? line.substring(open + 1, close) : null;
    }
}
