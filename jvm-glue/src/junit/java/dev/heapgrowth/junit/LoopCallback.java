package dev.heapgrowth.junit;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import dev.heapgrowth.settle.Settler;

/**
 * What the Rust engine calls back while it searches: runs the test method as loops on the
 * test's own thread and dumps the heap. The only class of the extension that uses reflection
 * (to invoke the test method once per loop).
 */
final class LoopCallback {
    private final Method method;
    private final Object target;
    private final Object[] arguments;
    private int loopsRun;
    private Throwable failure;
    /** Made before the first loop: the threads the loops start are waited for before a dump. */
    private final Settler settler = new Settler();

    LoopCallback(Method method, Object target, Object[] arguments) {
        this.method = method;
        this.target = target;
        this.arguments = arguments;
        method.setAccessible(true);
    }

    /**
     * Waits (up to two seconds) for work the loops handed to other threads to finish. Called
     * by the engine before each heap dump.
     */
    boolean settle() throws InterruptedException {
        return settler.settle();
    }

    /** A full collection, then waits for the cleanup it starts. Called by the engine. */
    void collectGarbage() throws InterruptedException {
        settler.collectGarbage();
    }

    /**
     * Runs {@code count} more loops. Returns the total so far, or minus the number of the loop
     * that threw (its throwable is then kept for {@link #failure()} and {@link #thrown()}).
     * Called by the engine (native code).
     */
    int runLoops(int count) {
        for (int i = 0; i < count; i++) {
            loopsRun++;
            try {
                method.invoke(target, arguments);
            } catch (InvocationTargetException e) {
                failure = e.getCause();
                return -loopsRun;
            } catch (IllegalAccessException e) {
                failure = e;
                return -loopsRun;
            }
        }
        return loopsRun;
    }

    /** The throwable of the failed loop as class, message, then stack lines. Called by the engine. */
    String[] failure() {
        List<String> lines = new ArrayList<>();
        lines.add(failure.getClass().getName());
        lines.add(failure.getMessage() == null ? "" : failure.getMessage());
        StringWriter stack = new StringWriter();
        failure.printStackTrace(new PrintWriter(stack));
        String[] printed = stack.toString().split("\n");
        for (int i = 1; i < printed.length; i++) {
            lines.add(printed[i].trim());
        }
        return lines.toArray(new String[0]);
    }

    /**
     * Where attribution starts following a growing path: the test class's loader (static-field
     * roots), the thread the loops run on, the test instance (null for a static method), and
     * the test class (whose code source is the user's code). Called by the engine.
     */
    Object[] pathStart() {
        return new Object[] {
            method.getDeclaringClass().getClassLoader(), Thread.currentThread(), target, method.getDeclaringClass()
        };
    }

    /** Writes a live heap dump (after a full GC) to {@code path}. Called by the engine. */
    void dumpHeap(String path) throws IOException {
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(path, true);
    }

    /** What the test method threw, or null. */
    Throwable thrown() {
        return failure;
    }
}
