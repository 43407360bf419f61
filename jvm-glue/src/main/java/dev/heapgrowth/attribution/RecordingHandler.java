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
     * The caller's frames, one per line as {@code class TAB method TAB file TAB line TAB code
     * source} (empty for what is unknown, line -1): without this handler and the proxy class
     * above, and without heapgrowth's scenario thread below.
     */
    static String callerFrames() {
        List<StackWalker.StackFrame> frames = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE)
                .walk(stream -> stream.collect(java.util.stream.Collectors.toList()));
        // This handler's frames, then the proxy's (which a StackWalker may hide as reflection).
        int start = 0;
        while (start < frames.size() && (frames.get(start).getDeclaringClass() == RecordingHandler.class
                || isProxyClass(frames.get(start).getClassName()))) {
            start++;
        }
        StringBuilder out = new StringBuilder();
        for (int i = start; i < frames.size(); i++) {
            StackWalker.StackFrame frame = frames.get(i);
            if (frame.getClassName().startsWith("dev.heapgrowth.")) {
                break;
            }
            if (out.length() > 0) {
                out.append('\n');
            }
            String file = frame.getFileName();
            String source = LiveAttribution.codeSource(frame.getDeclaringClass());
            out.append(frame.getClassName()).append('\t').append(frame.getMethodName()).append('\t')
                    .append(file == null ? "" : file).append('\t').append(frame.getLineNumber()).append('\t')
                    .append(source == null ? "" : source);
        }
        return out.toString();
    }

    private static boolean isProxyClass(String name) {
        return name.startsWith("jdk.proxy") || name.startsWith("com.sun.proxy.");
    }
}
