package dev.heapgrowth.glue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;

/**
 * A scenario did not finish its loops (or its constructor) within the time limit. The stack
 * trace is the scenario thread's at that moment, where it is blocked; the message names the
 * deadlock the JVM sees, if any, in one line.
 */
public final class ScenarioTimeout extends Exception {
    private static final long serialVersionUID = 1L;

    private final int loopNumber;

    ScenarioTimeout(int loopNumber, Thread thread) {
        super(deadlocks());
        this.loopNumber = loopNumber;
        setStackTrace(thread.getStackTrace());
    }

    /** The loop that did not finish, counted from 1; 0 for the constructor. */
    public int loopNumber() {
        return loopNumber;
    }

    /** "deadlock: "a" waits for L held by "b"; ..." or null when the JVM sees none. */
    private static String deadlocks() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long[] ids = threads.isSynchronizerUsageSupported()
                ? threads.findDeadlockedThreads()
                : threads.findMonitorDeadlockedThreads();
        if (ids == null) {
            return null;
        }
        StringBuilder text = new StringBuilder("deadlock: ");
        String separator = "";
        for (ThreadInfo info : threads.getThreadInfo(ids)) {
            if (info == null) {
                continue;
            }
            text.append(separator)
                    .append('"').append(info.getThreadName()).append("\" waits for ")
                    .append(info.getLockName())
                    .append(" held by \"").append(info.getLockOwnerName()).append('"');
            separator = "; ";
        }
        return text.toString();
    }
}
