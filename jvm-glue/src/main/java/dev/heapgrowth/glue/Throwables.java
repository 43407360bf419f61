package dev.heapgrowth.glue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/** Turns a Throwable into plain strings for the Rust side. */
public final class Throwables {
    private Throwables() {}

    /**
     * Returns {class name, message or null, stack line...}. Stack lines read
     * {@code at pkg.Class.method(File.java:12)}; each cause follows as
     * {@code Caused by: class: message} with its own frames, the frames it shares with the
     * throwable it caused elided as {@code ... n more}, as in {@code printStackTrace}.
     * Frames of this glue (and the reflection and thread frames that called into the scenario)
     * are cut from the bottom: the user's code is where a trace should end.
     */
    public static String[] describe(Throwable throwable) {
        List<String> out = new ArrayList<>();
        out.add(throwable.getClass().getName());
        out.add(throwable.getMessage());
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        StackTraceElement[] enclosing = new StackTraceElement[0];
        Throwable current = throwable;
        boolean first = true;
        while (current != null && seen.add(current)) {
            StackTraceElement[] frames = userFrames(current.getStackTrace());
            if (!first) {
                out.add("Caused by: " + current);
            }
            int common = commonTail(frames, enclosing);
            for (int i = 0; i < frames.length - common; i++) {
                out.add("at " + frame(frames[i]));
            }
            if (common > 0) {
                out.add("... " + common + " more");
            }
            enclosing = frames;
            current = current.getCause();
            first = false;
        }
        return out.toArray(new String[0]);
    }

    private static StackTraceElement[] userFrames(StackTraceElement[] frames) {
        int end = frames.length;
        while (end > 0 && isHarnessFrame(frames[end - 1].getClassName())) {
            end--;
        }
        // A trace made only of harness frames (unlikely) is kept whole rather than emptied.
        if (end == 0) {
            return frames;
        }
        StackTraceElement[] kept = new StackTraceElement[end];
        System.arraycopy(frames, 0, kept, 0, end);
        return kept;
    }

    private static boolean isHarnessFrame(String className) {
        return className.startsWith("dev.heapgrowth.glue.")
                || className.startsWith("jdk.internal.reflect.")
                || className.startsWith("java.lang.reflect.")
                || className.equals("java.lang.Thread");
    }

    private static int commonTail(StackTraceElement[] frames, StackTraceElement[] enclosing) {
        int m = frames.length - 1;
        int n = enclosing.length - 1;
        int common = 0;
        while (m >= 0 && n >= 0 && frames[m].equals(enclosing[n])) {
            m--;
            n--;
            common++;
        }
        return common;
    }

    /** Like StackTraceElement.toString without the module and class loader prefixes. */
    private static String frame(StackTraceElement e) {
        String where;
        if (e.isNativeMethod()) {
            where = "Native Method";
        } else if (e.getFileName() == null) {
            where = "Unknown Source";
        } else if (e.getLineNumber() >= 0) {
            where = e.getFileName() + ":" + e.getLineNumber();
        } else {
            where = e.getFileName();
        }
        return e.getClassName() + "." + e.getMethodName() + "(" + where + ")";
    }
}
