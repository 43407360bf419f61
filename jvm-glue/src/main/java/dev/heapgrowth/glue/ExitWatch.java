package dev.heapgrowth.glue;

import java.util.Map;

/**
 * Tells heapgrowth who called {@code System.exit} or {@code Runtime.exit}: a JVM shutdown hook
 * that finds the thread inside {@code Runtime.exit} and reports the frame that called it.
 *
 * <p>The process then ends in heapgrowth's exit hook (src/jvm/exit.rs), which prints the report
 * so far, deletes the heap dumps and exits with status 2 naming this call. {@code Runtime.halt}
 * runs no shutdown hooks, so it is reported without a call site.
 */
final class ExitWatch {
    private ExitWatch() {}

    /** Registers the hook; called once when the glue is loaded. */
    static void install() {
        Thread hook = new Thread(ExitWatch::findExitCall, "heapgrowth-exit-watch");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    private static void findExitCall() {
        for (Map.Entry<Thread, StackTraceElement[]> entry : Thread.getAllStackTraces().entrySet()) {
            StackTraceElement[] stack = entry.getValue();
            for (int i = 0; i < stack.length; i++) {
                if (!isFrame(stack[i], "java.lang.Runtime", "exit")) {
                    continue;
                }
                String method = "Runtime.exit";
                int caller = i + 1;
                if (caller < stack.length && isFrame(stack[caller], "java.lang.System", "exit")) {
                    method = "System.exit";
                    caller++;
                }
                Thread thread = entry.getKey();
                exitCalled(
                        method,
                        caller < stack.length ? describe(stack[caller]) : null,
                        thread.getName(),
                        thread instanceof ScenarioThread
                                ? ((ScenarioThread) thread).loopInProgress()
                                : 0);
                return;
            }
        }
    }

    /** {@code Class.method(File.java:N)}, without the class loader's and module's names. */
    private static String describe(StackTraceElement frame) {
        String place = frame.getFileName() == null
                ? "Unknown Source"
                : frame.getLineNumber() >= 0
                        ? frame.getFileName() + ":" + frame.getLineNumber()
                        : frame.getFileName();
        return frame.getClassName() + "." + frame.getMethodName() + "(" + place + ")";
    }

    private static boolean isFrame(StackTraceElement frame, String className, String method) {
        return frame.getClassName().equals(className) && frame.getMethodName().equals(method);
    }

    /** Bound by heapgrowth to a Rust function that keeps the call for its exit hook. */
    private static native void exitCalled(String method, String caller, String thread, int loop);
}
