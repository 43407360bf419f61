package dev.heapgrowth.attribution;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Set;

/**
 * The recording proxy's handler: records the caller's stack on every call that can add to a
 * collection or map, then delegates to the original, which keeps every object added. Calls that
 * remove are recorded too, with whether they removed anything (the size before and after), for
 * the hint that a remove found nothing (issue 32: a method reference passed to unsubscribe is a
 * new object each time).
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
    private final List<String> removeStacks;

    RecordingHandler(Object original, List<String> stacks, List<String> removeStacks) {
        this.original = original;
        this.stacks = stacks;
        this.removeStacks = removeStacks;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        String name = method.getName();
        if (ADDING_METHODS.contains(name)) {
            stacks.add(name + "\n" + callerFrames());
        }
        boolean removing = isRemoveLike(name);
        int before = removing ? size() : -1;
        try {
            return method.invoke(original, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        } finally {
            if (removing && before >= 0) {
                removeStacks.add(name + "\t" + (size() == before ? "0" : "1") + "\n" + callerFrames());
            }
        }
    }

    /**
     * Whether a method of that name removes: {@code remove}, or {@code remove} followed by an
     * upper-case letter ({@code removeIf}, {@code removeFirstOccurrence}, {@code removeElement}).
     * The same rule as the JVMTI read watch's (`jvmti::is_remove_like`), for the methods a
     * collection or map has.
     */
    static boolean isRemoveLike(String name) {
        return name.equals("remove")
                || (name.startsWith("remove") && name.length() > 6 && Character.isUpperCase(name.charAt(6)));
    }

    /** The original's size, or -1 if it is neither a collection nor a map. */
    private int size() {
        if (original instanceof java.util.Collection<?> collection) {
            return collection.size();
        }
        if (original instanceof java.util.Map<?, ?> map) {
            return map.size();
        }
        return -1;
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
