package dev.heapgrowth.attribution;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Set;

/**
 * The recording proxy's handler: records the caller's stack on every call that can add to a
 * collection or map, then delegates to the original, which keeps every object added.
 */
final class RecordingHandler implements InvocationHandler {
    /** Methods of Collection, List, Set, Queue, Deque and Map (and their sub-interfaces) that can add. */
    static final Set<String> ADDING_METHODS = Set.of(
            "add", "addAll", "put", "putAll", "putIfAbsent", "compute", "computeIfAbsent",
            "computeIfPresent", "merge", "offer", "offerFirst", "offerLast", "push", "addFirst",
            "addLast", "set", "replace", "replaceAll", "putFirst", "putLast", "addElement",
            "insertElementAt");

    private final Object original;
    private final List<String> stacks;

    RecordingHandler(Object original, List<String> stacks) {
        this.original = original;
        this.stacks = stacks;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if (ADDING_METHODS.contains(method.getName())) {
            stacks.add(method.getName() + "\n" + callerFrames());
        }
        try {
            return method.invoke(original, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /**
     * The caller's frames as {@code pkg.Class.method(File.java:LINE)}, one per line: without
     * getStackTrace, this handler and the proxy class above, and without heapgrowth's scenario
     * thread below.
     */
    static String callerFrames() {
        StackTraceElement[] frames = Thread.currentThread().getStackTrace();
        int start = 0;
        for (int i = 0; i < frames.length; i++) {
            if (isProxyClass(frames[i].getClassName())) {
                start = i + 1;
            }
        }
        StringBuilder out = new StringBuilder();
        for (int i = start; i < frames.length; i++) {
            StackTraceElement frame = frames[i];
            if (frame.getClassName().startsWith("dev.heapgrowth.")) {
                break;
            }
            if (out.length() > 0) {
                out.append('\n');
            }
            out.append(frame.getClassName()).append('.').append(frame.getMethodName()).append('(');
            if (frame.getFileName() != null) {
                out.append(frame.getFileName());
                if (frame.getLineNumber() >= 0) {
                    out.append(':').append(frame.getLineNumber());
                }
            } else {
                out.append("Unknown Source");
            }
            out.append(')');
        }
        return out.toString();
    }

    private static boolean isProxyClass(String name) {
        return name.startsWith("jdk.proxy") || name.startsWith("com.sun.proxy.");
    }
}
