package dev.heapgrowth.attribution;

import java.lang.ref.WeakReference;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The live side of attribution for one growing node: follows the node's path from its GC root
 * through the running scenario's objects, says which field a JVMTI watch fits, and installs
 * and removes recording proxies. The JVMTI recorders (field watches, allocation sampling, the
 * stack locals of a thread's frame) are driven from Rust; this class only names what they must
 * watch.
 *
 * <p>All the reflection of attribution lives here. Fields are found by reflection (or, for the
 * fields the JDK hides from it, through JNI: {@link #hiddenField}) but read and written through JNI ({@link #readField}, {@link #writeField}, native methods heapgrowth
 * registers in every JVM it attributes in): JNI field access is not subject to module checks,
 * so paths through JDK internals ({@code Thread.threadLocals}, {@code
 * java.util.concurrent.atomic}, {@code java.beans}) are followed in any JVM, including a test
 * JVM nobody opened anything in, where {@code setAccessible} would throw.
 *
 * <p>Path steps come from Rust as {@code {kind, owner, name, target}} with the kinds of the
 * report: {@code GC_ROOT}, {@code STATIC_FIELD}, {@code INSTANCE_FIELD}, {@code ARRAY_ENTRY},
 * {@code LOCAL}.
 */
public final class LiveAttribution {
    /** Owners visited at most per step: a path through a huge collection is cut here. */
    private static final int MAX_OBJECTS_PER_STEP = 100_000;

    /** Container classes whose size-bearing field a JVMTI watch can follow: class, field. */
    private static final String[][] CONTAINER_FIELDS = {
        {"java.util.ArrayList", "size"},
        {"java.util.LinkedList", "size"},
        {"java.util.Vector", "elementCount"},
        {"java.util.ArrayDeque", "tail"},
        {"java.util.PriorityQueue", "size"},
        {"java.util.HashMap", "size"},
        {"java.util.TreeMap", "size"},
        {"java.util.IdentityHashMap", "size"},
        {"java.util.Hashtable", "count"},
        {"java.util.WeakHashMap", "size"},
        {"java.util.concurrent.CopyOnWriteArrayList", "array"},
        {"java.util.concurrent.ArrayBlockingQueue", "count"},
        {"java.util.concurrent.LinkedBlockingDeque", "count"},
        {"java.util.concurrent.LinkedBlockingQueue", "last"},
        {"java.util.concurrent.PriorityBlockingQueue", "size"},
        {"java.lang.AbstractStringBuilder", "count"},
    };

    /** Containers that keep their elements in a container of {@link #CONTAINER_FIELDS}: class, field. */
    private static final String[][] WRAPPING_CONTAINERS = {
        {"java.util.HashSet", "map"},
        {"java.util.TreeSet", "m"},
        {"java.util.concurrent.CopyOnWriteArraySet", "al"},
        {"java.util.Collections$SynchronizedCollection", "c"},
        {"java.util.Collections$SynchronizedMap", "m"},
    };

    private final ClassLoader loader;
    private final Thread scenarioThread;
    /** The object a {@code LOCAL} root step stands for (the JUnit test instance), or null. */
    private final Object instance;
    /** The path, 4 strings per step. */
    private final String[] steps;
    /** What the {@code LOCAL} step below the root holds (found by JVMTI), or null. */
    private final Object[] locals;
    /** Every class loaded when the path was opened (listed by JVMTI, for {@code CLASS} steps), or null. */
    private final Class<?>[] loadedClasses;
    /** The kind of the path's last step. */
    private String lastKind = "";
    /** Objects at the step before the growing node (the owners of its field). */
    private List<Object> owners = List.of();
    /** Objects of the growing node itself. */
    private List<Object> targets = List.of();
    /** The last step's field, when the last step is a field. */
    private Field field;
    private String failure;

    private String[] plan;
    /** The name pattern of the node, when it is a root group of threads, or null. */
    private String threadGroup;
    /** Watched container field (kind "container"), and the containers it is watched in. */
    private Field containerField;
    private List<Object> containerObjects = List.of();

    // Proxy recording state.
    private final List<Object> proxiedOwners = new ArrayList<>();
    private final List<Object> originals = new ArrayList<>();
    private final List<Object> proxies = new ArrayList<>();
    private final List<String> stacks = Collections.synchronizedList(new ArrayList<>());
    /** Recorded remove-like calls, for the remove hint (see {@link RecordingHandler}). */
    private final List<String> removeStacks = Collections.synchronizedList(new ArrayList<>());
    /** Every proxy installed, to tell afterwards whether the scenario kept one somewhere. */
    private final List<WeakReference<Object>> removedProxies = new ArrayList<>();
    /** Fields the scenario set to something else while our proxy was in them. */
    private int replacedWhileProxied;
    /** The field the proxies go into, once {@link #proxyTarget} chose it. */
    private Field proxyField;

    private LiveAttribution(
            ClassLoader loader, Thread scenarioThread, Object instance, String[] steps, Object[] locals,
            Class<?>[] loadedClasses) {
        this.loader = loader;
        this.scenarioThread = scenarioThread;
        this.instance = instance;
        this.steps = steps;
        this.locals = locals;
        this.loadedClasses = loadedClasses;
    }

    /**
     * Follows {@code steps} (4 strings per step: kind, owner, name, target) from the root.
     * Never throws for a path it cannot follow: {@link #plan} then says why.
     *
     * @param loader the scenario's class loader (static-field roots are loaded through it)
     * @param scenarioThread the thread the loops run on (thread-object roots)
     * @param instance the object a {@code LOCAL} step right below the root stands for (the
     *     JUnit test instance), or null
     * @param locals the objects the frames of the {@code LOCAL} step right below the root hold
     *     in their local variables (JVMTI finds them), or null when they could not be found
     */
    public static LiveAttribution open(
            ClassLoader loader, Thread scenarioThread, Object instance, String[] steps, Object[] locals) {
        return open(loader, scenarioThread, instance, steps, locals, null);
    }

    /**
     * As {@link #open(ClassLoader, Thread, Object, String[], Object[])}, with every class loaded
     * now ({@code loadedClasses}, listed by JVMTI, hidden classes included), where a {@code
     * CLASS} step looks for the classes its loaders defined; null without heapgrowth's agent,
     * when a {@code CLASS} step asks each loader for a class it already loaded, by name.
     */
    public static LiveAttribution open(
            ClassLoader loader, Thread scenarioThread, Object instance, String[] steps, Object[] locals,
            Class<?>[] loadedClasses) {
        LiveAttribution attribution =
                new LiveAttribution(loader, scenarioThread, instance, steps, locals, loadedClasses);
        attribution.walkOrSayWhy();
        return attribution;
    }

    /**
     * Follows the path again, for the objects that are the node now (an array replaced on every
     * add, a map rehashed). Returns null, or why the path cannot be followed any more (the
     * objects of the last walk are kept then).
     */
    public String refresh() {
        List<Object> oldOwners = owners;
        List<Object> oldTargets = targets;
        String oldFailure = failure;
        walkOrSayWhy();
        String now = failure;
        if (now != null) {
            owners = oldOwners;
            targets = oldTargets;
            failure = oldFailure;
        }
        return now;
    }

    /** The node's objects, as of the last walk. */
    public Object[] nodeObjects() {
        return targets.toArray();
    }

    private void walkOrSayWhy() {
        failure = null;
        try {
            walk();
        } catch (RuntimeException | LinkageError e) {
            failure = "cannot follow the path in the running JVM: " + e;
        }
    }

    private void walk() {
        if (steps.length == 4 && steps[2].equals("ThreadObject") && !steps[3].isEmpty()) {
            // A group of threads that grows: its own objects are what to attribute.
            threadGroup = steps[3];
            targets = threadsNamed(threadGroup, scenarioThread);
            if (targets.isEmpty()) {
                failure = "no live thread is named like \"" + threadGroup + "\" any more";
            }
            return;
        }
        if (steps.length < 8 || steps.length % 4 != 0) {
            failure = "the path has no step below its root";
            return;
        }
        String root = steps[2];
        List<Object> current;
        boolean classRoot = false;
        switch (root) {
            case "Class":
            case "StickyClass":
                classRoot = true;
                current = List.of();
                break;
            case "ThreadObject":
                current = threadsNamed(steps[3], scenarioThread);
                if (current.isEmpty()) {
                    failure = "no live thread is named like \"" + steps[3] + "\", the root of the path, any more";
                    return;
                }
                break;
            default:
                if (instance != null && steps[4].equals("LOCAL")) {
                    // A stack-frame root: the LOCAL step below may be the test instance.
                    current = List.of();
                    break;
                }
                failure = "the path starts at a GcRoot(" + root + "), which heapgrowth cannot reach from Java";
                return;
        }
        List<Object> previous = current;
        for (int i = 4; i < steps.length; i += 4) {
            String kind = steps[i];
            String owner = steps[i + 1];
            String name = steps[i + 2];
            String target = steps[i + 3];
            boolean last = i + 4 == steps.length;
            List<Object> next;
            // Why the step reached nothing, when a more exact reason than "the path changed" is known.
            String why = null;
            switch (kind) {
                case "STATIC_FIELD": {
                    Class<?> ownerClass = classNamed(current, owner);
                    Field f = findStepField(ownerClass, owner, name, target, true);
                    if (f == null) {
                        failure = notAField(owner, name, target);
                        return;
                    }
                    if (last) {
                        field = f;
                        previous = List.of();
                    }
                    Object value = get(f, null);
                    next = filter(Collections.singletonList(value), target);
                    why = noLiveObject(kind, owner, name, target, "the static field "
                            + (value == null ? "is null" : "holds a " + value.getClass().getTypeName()));
                    break;
                }
                case "INSTANCE_FIELD": {
                    if (owner.equals("java.lang.Class") && name.equals("classLoader")) {
                        // A class's loader: a field reflection hides, read through its getter.
                        next = filter(loadersOf(current), target);
                        break;
                    }
                    next = new ArrayList<>();
                    Field f = null;
                    // Per owner class: the field, or null when the class has no field by that name.
                    Map<Class<?>, Field> fieldOf = new IdentityHashMap<>();
                    int otherClasses = 0;
                    int nulls = 0;
                    int otherValues = 0;
                    for (Object object : current) {
                        Class<?> type = object.getClass();
                        if (declaringClass(type, owner) == null) {
                            otherClasses++;
                            continue;
                        }
                        if (!fieldOf.containsKey(type)) {
                            fieldOf.put(type, findStepField(type, owner, name, target, false));
                        }
                        Field found = fieldOf.get(type);
                        if (found == null) {
                            continue;
                        }
                        f = found;
                        Object value = get(found, object);
                        if (value == null) {
                            nulls++;
                        } else if (!matches(value.getClass(), target)) {
                            otherValues++;
                        }
                        next.add(value);
                    }
                    if (last) {
                        field = f;
                    }
                    next = filter(next, target);
                    if (f == null && otherClasses < current.size()) {
                        failure = notAField(owner, name, target);
                        return;
                    }
                    why = noLiveObject(kind, owner, name, target, ownersSaid(
                            current.size(), otherClasses, owner, nulls, otherValues));
                    break;
                }
                case "ARRAY_ENTRY":
                    next = filter(elements(current, owner, name), target);
                    break;
                case "CLASS":
                    next = classesDefinedBy(current, name);
                    why = "no live object found at " + kind + " " + owner + "." + name + " -> " + target + ": "
                            + (loadedClasses != null
                                    ? "no class of that name defined by the " + current.size()
                                            + " object(s) at the step before is loaded now (the path changed since"
                                            + " the last snapshot)"
                                    : "none of the " + current.size() + " object(s) at the step before has loaded a"
                                            + " class of that name (it was unloaded, or it is a hidden class, which no"
                                            + " name finds: heapgrowth's JVMTI agent lists those; load it with"
                                            + " -agentpath:)");
                    break;
                case "LOCAL":
                    if (i == 4 && locals != null) {
                        next = filter(Arrays.asList(locals), target);
                        break;
                    }
                    if (i == 4 && instance != null && instance.getClass().getName().equals(target)) {
                        // A stack local of the loop's caller holding the test instance.
                        next = List.of(instance);
                        break;
                    }
                    failure = "the node is held by a local variable of " + owner + "." + name
                            + " on thread " + describeThreads(current)
                            + ", which only heapgrowth's JVMTI agent can read (load it with -agentpath:)";
                    return;
                default:
                    failure = "unknown path step kind " + kind;
                    return;
            }
            if (classRoot && i == 4 && !kind.equals("STATIC_FIELD")) {
                failure = "a class root must be followed by a static field";
                return;
            }
            if (next.isEmpty()) {
                failure = why != null ? why : "no live object found at " + kind + " " + owner + "." + name + " -> "
                        + target + " (the path changed since the last snapshot)";
                return;
            }
            previous = current;
            current = next;
            lastKind = kind;
        }
        owners = previous;
        targets = current;
    }

    /** A step's failure text when the step's field was found but holds no object of the step's class. */
    static String noLiveObject(String kind, String owner, String name, String target, String what) {
        return "no live object found at " + kind + " " + owner + "." + name + " -> " + target + ": " + what
                + " (the path changed since the last snapshot)";
    }

    /**
     * What the owners of an instance field step held: {@code owners} visited, {@code otherClasses}
     * of them not a {@code owner}, the field null in {@code nulls}, of another class in {@code
     * otherValues}.
     */
    static String ownersSaid(int owners, int otherClasses, String owner, int nulls, int otherValues) {
        List<String> parts = new ArrayList<>();
        if (otherClasses > 0) {
            parts.add(otherClasses + " not a " + owner);
        }
        if (nulls > 0) {
            parts.add("the field null in " + nulls);
        }
        if (otherValues > 0) {
            parts.add("holding another class in " + otherValues);
        }
        String said = owners + (owners == 1 ? " owner" : " owners");
        return parts.isEmpty() ? said : said + ", " + String.join(", ", parts);
    }

    /** The failure text of a field step whose field neither reflection nor JNI finds. */
    static String notAField(String owner, String name, String target) {
        return owner + "." + name + " is not a field heapgrowth can find in " + owner
                + " (reflection does not list it, and JNI knows no field of that name whose type is "
                + target + " or one of its supertypes)";
    }

    /** The threads a thread root group stands for (see {@link #threadsNamed}), for JVMTI. */
    public static Thread[] threadsOf(String pattern, Thread scenarioThread) {
        return threadsNamed(pattern, scenarioThread).toArray(new Thread[0]);
    }

    private static String describeThreads(List<Object> threads) {
        Set<String> names = new LinkedHashSet<>();
        for (Object thread : threads) {
            names.add("\"" + ((Thread) thread).getName() + "\"");
        }
        return String.join(", ", names);
    }

    /**
     * The threads a thread root group stands for: those whose name matches {@code pattern}
     * (digit runs written {@code *}, as the path tree groups them), or the scenario's thread
     * when the dump had no name.
     */
    private static List<Object> threadsNamed(String pattern, Thread scenarioThread) {
        if (pattern.isEmpty()) {
            return List.of(scenarioThread);
        }
        List<Object> threads = new ArrayList<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().replaceAll("[0-9]+", "*").equals(pattern)) {
                threads.add(thread);
            }
        }
        return threads;
    }

    /** The loaders of the classes among {@code classes}. */
    private static List<Object> loadersOf(List<Object> classes) {
        List<Object> out = new ArrayList<>();
        for (Object c : classes) {
            if (c instanceof Class) {
                out.add(((Class<?>) c).getClassLoader());
            }
        }
        return out;
    }

    /**
     * The classes named {@code className} (as reports name them: a hidden class without its
     * address suffix) that a {@code CLASS} step reaches from {@code owners}: those the class
     * loaders among them defined, or the class of an instance among them. Nothing is loaded by
     * name (a loader's {@code loadClass} may define a class on demand, a side effect in the
     * scenario): the loaded classes JVMTI listed are searched, or without them each loader's
     * {@code findLoadedClass}.
     */
    private List<Object> classesDefinedBy(List<Object> owners, String className) {
        List<Object> out = new ArrayList<>();
        Set<Object> loaders = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Object owner : owners) {
            if (owner instanceof ClassLoader) {
                loaders.add(owner);
            } else if (owner != null && matches(owner.getClass(), className)) {
                out.add(owner.getClass());
            }
        }
        if (loaders.isEmpty()) {
            return out;
        }
        if (loadedClasses != null) {
            for (Class<?> c : loadedClasses) {
                if (c != null && loaders.contains(c.getClassLoader()) && matches(c, className)) {
                    out.add(c);
                }
            }
            return out;
        }
        for (Object loader : loaders) {
            Class<?> c = findLoadedClass((ClassLoader) loader, className);
            if (c != null && c.getClassLoader() == loader) {
                out.add(c);
            }
        }
        return out;
    }

    /**
     * {@code loader.findLoadedClass(name)}, called through JNI (it is protected): the class
     * {@code loader} already loaded under that binary name, or null. Loads nothing.
     */
    private static native Class<?> findLoadedClass(ClassLoader loader, String name);

    /**
     * The class of a static field step: among the classes the step before reached (a
     * {@code CLASS} step), else looked up by name.
     */
    private Class<?> classNamed(List<Object> current, String className) {
        for (Object object : current) {
            if (object instanceof Class && ((Class<?>) object).getName().equals(className)) {
                return (Class<?>) object;
            }
        }
        return loadClass(className);
    }

    /** A class by name: the scenario's loader delegates to the JDK's for JDK classes. */
    private Class<?> loadClass(String className) {
        try {
            return Class.forName(className, false, loader);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("class " + className + " not found in the scenario's class loader", e);
        }
    }

    /**
     * The value of reference field {@code f} of {@code owner} (ignored for a static field),
     * read through JNI.
     */
    private static Object get(Field f, Object owner) {
        return readField(f.getDeclaringClass(), f, Modifier.isStatic(f.getModifiers()) ? null : owner);
    }

    /** Sets reference field {@code f} of {@code owner} (ignored for a static field) through JNI. */
    private static void set(Field f, Object owner, Object value) {
        writeField(f.getDeclaringClass(), f, Modifier.isStatic(f.getModifiers()) ? null : owner, value);
    }

    /** The value of reference field {@code field}: of {@code owner}, or static if it is null. */
    private static native Object readField(Class<?> declaring, Field field, Object owner);

    /** Sets reference field {@code field} of {@code owner}, or the static field if it is null. */
    private static native void writeField(Class<?> declaring, Field field, Object owner, Object value);

    /**
     * The reference field {@code name} declared by the class named {@code owner} in {@code type}'s
     * hierarchy, whose value is a {@code target} (as reports name classes): by reflection, else
     * (the JDK hides all fields of {@code ClassLoader}, {@code Class}, {@code Module} from
     * reflection) through JNI, which does not filter, with the descriptors of the types the
     * field can be declared as. Null if neither finds it.
     */
    private Field findStepField(Class<?> type, String owner, String name, String target, boolean isStatic) {
        Field f = findField(type, owner, name);
        if (f != null) {
            return f;
        }
        Class<?> declaring = declaringClass(type, owner);
        if (declaring == null) {
            return null;
        }
        Field hidden = hiddenField(declaring, name, candidateDescriptors(declaring, target), isStatic);
        return hidden != null && !hidden.getType().isPrimitive()
                && Modifier.isStatic(hidden.getModifiers()) == isStatic ? hidden : null;
    }

    /** The class named {@code owner} in {@code type}'s superclass chain, or null. */
    private static Class<?> declaringClass(Class<?> type, String owner) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(owner)) {
                return c;
            }
        }
        return null;
    }

    /**
     * The JVM descriptors a field holding a {@code target} can be declared with: the class's,
     * its superclasses' and its interfaces'. The class is looked up among those the field's
     * class's loader or the scenario's already loaded (it was in the heap dump; nothing is
     * loaded), else among the JDK's; if it is in none, only {@code Object}'s.
     */
    private String[] candidateDescriptors(Class<?> declaring, String target) {
        Set<String> out = new LinkedHashSet<>();
        Class<?> type = declaring.getClassLoader() == null ? null : typeNamed(target, declaring.getClassLoader());
        if (type == null && declaring.getClassLoader() != loader) {
            type = typeNamed(target, loader);
        }
        if (type == null) {
            type = typeNamed(target, null);
        }
        if (type != null && type.isArray()) {
            out.add(descriptor(type));
            if (!type.getComponentType().isPrimitive()) {
                out.add("[Ljava/lang/Object;");
            }
            out.add("Ljava/lang/Cloneable;");
            out.add("Ljava/io/Serializable;");
        } else if (type != null) {
            List<Class<?>> pending = new ArrayList<>(List.of(type));
            while (!pending.isEmpty()) {
                Class<?> c = pending.remove(pending.size() - 1);
                if (out.add(descriptor(c))) {
                    if (c.getSuperclass() != null) {
                        pending.add(c.getSuperclass());
                    }
                    pending.addAll(Arrays.asList(c.getInterfaces()));
                }
            }
        }
        out.add("Ljava/lang/Object;");
        return out.toArray(new String[0]);
    }

    /**
     * The class (or array class) named {@code name} as reports name it that {@code from} already
     * loaded, or the JDK's boot loader when {@code from} is null (which runs no scenario code);
     * null if there is none.
     */
    private static Class<?> typeNamed(String name, ClassLoader from) {
        String binary = name;
        int dimensions = 0;
        while (binary.endsWith("[]")) {
            binary = binary.substring(0, binary.length() - 2);
            dimensions++;
        }
        try {
            Class<?> type = PRIMITIVES.containsKey(binary) ? PRIMITIVES.get(binary)
                    : from == null ? Class.forName(binary, false, null)
                    : findLoadedClass(from, binary);
            if (type == null) {
                return null;
            }
            for (int i = 0; i < dimensions; i++) {
                type = type.arrayType();
            }
            return type;
        } catch (ClassNotFoundException | LinkageError e) {
            // A hidden or lambda class (its name lost its suffix), or one this loader cannot see.
            return null;
        }
    }

    /**
     * The field {@code name} that {@code declaring} itself declares, found through JNI with the
     * first of {@code descriptors} that fits, as a reflection {@code Field}; null if none does.
     */
    private static native Field hiddenField(Class<?> declaring, String name, String[] descriptors, boolean isStatic);

    /** The field {@code name} declared by the class named {@code owner} in {@code type}'s hierarchy. */
    private static Field findField(Class<?> type, String owner, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(owner)) {
                for (Field f : c.getDeclaredFields()) {
                    if (f.getName().equals(name) && !f.getType().isPrimitive()) {
                        return f;
                    }
                }
                return null;
            }
        }
        return null;
    }

    /** Elements of arrays, collections ({@code [x]}), map values ({@code [x]}) or keys ({@code [key]}). */
    private List<Object> elements(List<Object> containers, String owner, String name) {
        List<Object> out = new ArrayList<>();
        for (Object container : containers) {
            if (container == null) {
                continue;
            }
            if (container.getClass().isArray()) {
                if (!container.getClass().getComponentType().isPrimitive()) {
                    int length = Array.getLength(container);
                    for (int i = 0; i < length && out.size() < MAX_OBJECTS_PER_STEP; i++) {
                        out.add(Array.get(container, i));
                    }
                }
            } else if (container instanceof Map) {
                Collection<?> part = name.equals("[key]")
                        ? ((Map<?, ?>) container).keySet()
                        : ((Map<?, ?>) container).values();
                addAll(out, part);
            } else if (container instanceof Collection) {
                addAll(out, (Collection<?>) container);
            } else if (container.getClass().getName().equals("java.lang.ThreadLocal$ThreadLocalMap")) {
                threadLocalValues(container, out);
            }
        }
        return out;
    }

    private static void addAll(List<Object> out, Collection<?> part) {
        for (Object element : part.toArray()) {
            if (out.size() >= MAX_OBJECTS_PER_STEP) {
                return;
            }
            out.add(element);
        }
    }

    /** The values of a {@code ThreadLocal.ThreadLocalMap} (needs java.base/java.lang opened). */
    private void threadLocalValues(Object map, List<Object> out) {
        Field table = findField(map.getClass(), map.getClass().getName(), "table");
        if (table == null) {
            return;
        }
        Object entries = get(table, map);
        int length = Array.getLength(entries);
        for (int i = 0; i < length; i++) {
            Object entry = Array.get(entries, i);
            if (entry != null) {
                Field value = findField(entry.getClass(), entry.getClass().getName(), "value");
                if (value != null) {
                    out.add(get(value, entry));
                }
            }
        }
    }

    /** Keeps the non-null objects of class {@code target} (by type name, as the report prints it), without duplicates. */
    private static List<Object> filter(List<Object> objects, String target) {
        Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        List<Object> out = new ArrayList<>();
        for (Object object : objects) {
            if (object != null && matches(object.getClass(), target) && seen.add(object)) {
                out.add(object);
            }
        }
        return out;
    }

    private static boolean matches(Class<?> type, String target) {
        String name = type.getTypeName();
        if (name.equals(target)) {
            return true;
        }
        // Hidden and lambda classes lose their address suffix in reports.
        int slash = name.indexOf('/');
        return slash > 0 && name.substring(0, slash).equals(target);
    }

    /**
     * The JVMTI recorder for this node: {@code {"field", class, field, descriptor, static
     * ("1"/"0"), label}} for a watch on the node's own field, {@code {"container", class, field,
     * descriptor, "0", label}} for a watch on the containers' internal size field, {@code
     * {"allocations", reason}} when only allocation sampling fits (and why nothing else), or
     * {@code {"none", reason}}.
     */
    public String[] plan() {
        if (plan == null) {
            plan = decide();
        }
        return plan;
    }

    private String[] decide() {
        if (failure != null) {
            return new String[] {"none", failure};
        }
        if (threadGroup != null) {
            return new String[] {"allocations", "the node is a group of threads (\"" + threadGroup + "\")"};
        }
        String[] container = containerPlan();
        if (container != null) {
            return container;
        }
        Object sample = targets.get(0);
        String what = sample instanceof Collection || sample instanceof Map || sample.getClass().isArray()
                ? "a " + sample.getClass().getName() + ", which changes without a field write heapgrowth can watch"
                : "a " + sample.getClass().getName();
        if (field == null || Modifier.isFinal(field.getModifiers())) {
            return new String[] {"allocations", "the node is " + what + " reached through "
                    + (field != null ? "a final field"
                            : lastKind.equals("CLASS") ? "the class loader that defined it"
                            : "an array or collection entry")};
        }
        boolean isStatic = Modifier.isStatic(field.getModifiers());
        String owner = field.getDeclaringClass().getName();
        return new String[] {"field", owner, field.getName(), descriptor(field.getType()), isStatic ? "1" : "0",
            simpleName(owner) + "." + field.getName()};
    }

    /**
     * Whether a recording proxy can stand in the node's field: null if so, else why not. A proxy
     * is visible to the scenario (another class and identity in the field), so it is the last
     * resort.
     */
    public String proxyFit() {
        if (failure != null) {
            return failure;
        }
        if (field == null) {
            return "a proxy needs a field, and the node is reached through "
                    + (threadGroup != null ? "a thread"
                            : lastKind.equals("CLASS") ? "the class loader that defined it"
                            : "an array or collection entry");
        }
        Field field = proxyTarget();
        Class<?> declared = field.getType();
        if (!collectionInterface(declared)) {
            return "a proxy needs a field declared as a Collection or Map interface, and "
                    + simpleName(field.getDeclaringClass().getName()) + "." + field.getName() + " is a "
                    + declared.getTypeName();
        }
        if (Modifier.isFinal(field.getModifiers())) {
            return "a proxy cannot go into the final field "
                    + simpleName(field.getDeclaringClass().getName()) + "." + field.getName();
        }
        return null;
    }

    private static boolean collectionInterface(Class<?> declared) {
        return declared.isInterface()
                && (Collection.class.isAssignableFrom(declared) || Map.class.isAssignableFrom(declared));
    }

    /**
     * The field a recording proxy goes into: the node's field; or, when that one is not declared
     * as a Collection or Map interface (an {@code Object} field that also holds the container),
     * the first by name of the other non-final fields of its class, static as it is, declared as
     * one, that hold the very same non-null object in every owner. The code that adds goes
     * through the field of the container's type, and which of two fields holding one object the
     * path names is the JVM's choice (JDK 17 and 25 list a class's fields in other orders).
     * Chosen once; needs {@link #field}.
     */
    private Field proxyTarget() {
        if (proxyField != null) {
            return proxyField;
        }
        proxyField = field;
        if (collectionInterface(field.getType())) {
            return proxyField;
        }
        boolean isStatic = Modifier.isStatic(field.getModifiers());
        List<Object> fieldOwners = isStatic ? Collections.singletonList(null) : owners;
        Field[] candidates = field.getDeclaringClass().getDeclaredFields();
        Arrays.sort(candidates, (a, b) -> a.getName().compareTo(b.getName()));
        for (Field candidate : candidates) {
            int modifiers = candidate.getModifiers();
            if (candidate.equals(field) || Modifier.isStatic(modifiers) != isStatic || Modifier.isFinal(modifiers)
                    || !collectionInterface(candidate.getType()) || fieldOwners.isEmpty()) {
                continue;
            }
            boolean same = true;
            try {
                for (Object owner : fieldOwners) {
                    Object value = get(field, owner);
                    same &= value != null && get(candidate, owner) == value;
                }
            } catch (RuntimeException e) {
                same = false;
            }
            if (same) {
                proxyField = candidate;
                break;
            }
        }
        return proxyField;
    }

    /** The watch on the containers' size field, or null if they are not all of one known kind. */
    private String[] containerPlan() {
        List<Object> containers = new ArrayList<>();
        Field watched = null;
        for (Object target : targets) {
            Object container = watchedContainer(target);
            Field field = container == null ? null : containerFieldOf(container.getClass());
            if (field == null || (watched != null && !watched.equals(field))) {
                return null;
            }
            watched = field;
            containers.add(container);
        }
        containerField = watched;
        containerObjects = containers;
        return new String[] {"container", watched.getDeclaringClass().getName(), watched.getName(),
            descriptor(watched.getType()), "0", simpleName(watched.getDeclaringClass().getName())};
    }

    /**
     * The container whose size field tells when {@code target} grows: itself, or the one a
     * wrapper keeps its elements in ({@code HashSet.map}, a synchronized list's list); null if
     * there is none heapgrowth knows.
     */
    private static Object watchedContainer(Object target) {
        if (containerFieldOf(target.getClass()) != null) {
            return target;
        }
        for (Class<?> c = target.getClass(); c != null; c = c.getSuperclass()) {
            for (String[] rule : WRAPPING_CONTAINERS) {
                if (c.getName().equals(rule[0])) {
                    Field inner = findField(c, rule[0], rule[1]);
                    Object container = inner == null ? null : get(inner, target);
                    return container != null && containerFieldOf(container.getClass()) != null ? container : null;
                }
            }
        }
        return null;
    }

    private static Field containerFieldOf(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (String[] rule : CONTAINER_FIELDS) {
                if (c.getName().equals(rule[0])) {
                    try {
                        return c.getDeclaredField(rule[1]);
                    } catch (NoSuchFieldException e) {
                        return null;
                    }
                }
            }
        }
        return null;
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    /** The JVM descriptor of {@code type}, for JNI's GetFieldID. */
    static String descriptor(Class<?> type) {
        if (type.isArray()) {
            return type.getName().replace('.', '/');
        }
        if (type.isPrimitive()) {
            switch (type.getName()) {
                case "int": return "I";
                case "long": return "J";
                case "boolean": return "Z";
                case "byte": return "B";
                case "char": return "C";
                case "short": return "S";
                case "float": return "F";
                case "double": return "D";
                default: return "V";
            }
        }
        return "L" + type.getName().replace('.', '/') + ";";
    }

    /** The class declaring the watched field, for JNI (a class of the scenario's loader or the JDK). */
    public Class<?> watchClass() {
        String[] p = plan();
        if (p[0].equals("container")) {
            return containerField.getDeclaringClass();
        }
        return field.getDeclaringClass();
    }

    /** The objects a watch is filtered to: the containers, or the field's owners; none for a static field. */
    public Object[] watchObjects() {
        String[] p = plan();
        if (p[0].equals("container")) {
            return containerObjects.toArray();
        }
        if (p[0].equals("field") && p[4].equals("0")) {
            return owners.toArray();
        }
        return new Object[0];
    }

    /**
     * Swaps a recording proxy into the node's field in every owner. Returns null on success, or
     * why not (nothing is swapped then).
     */
    public String installProxies() {
        String unfit = proxyFit();
        if (unfit != null) {
            return unfit;
        }
        Field field = proxyTarget();
        boolean isStatic = Modifier.isStatic(field.getModifiers());
        List<Object> fieldOwners = isStatic ? Collections.singletonList(null) : owners;
        try {
            for (Object owner : fieldOwners) {
                Object original = get(field, owner);
                if (original == null) {
                    continue;
                }
                Object proxy = Proxy.newProxyInstance(
                        proxyLoader(), interfacesOf(original.getClass(), field.getType()),
                        new RecordingHandler(original, stacks, removeStacks));
                set(field, owner, proxy);
                proxiedOwners.add(owner);
                originals.add(original);
                proxies.add(proxy);
                removedProxies.add(new WeakReference<>(proxy));
            }
        } catch (RuntimeException e) {
            restore();
            return "cannot set " + field.getDeclaringClass().getName() + "." + field.getName() + ": " + e;
        }
        return proxies.isEmpty() ? "the field holds null in every owner" : null;
    }

    private ClassLoader proxyLoader() {
        ClassLoader l = proxyTarget().getDeclaringClass().getClassLoader();
        return l != null ? l : loader;
    }

    /** The public interfaces of {@code type}'s hierarchy, plus the field's declared type. */
    private static Class<?>[] interfacesOf(Class<?> type, Class<?> declared) {
        Set<Class<?>> out = new LinkedHashSet<>();
        out.add(declared);
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Class<?> i : c.getInterfaces()) {
                if (Modifier.isPublic(i.getModifiers())) {
                    out.add(i);
                }
            }
        }
        return out.toArray(new Class<?>[0]);
    }

    /**
     * Puts the originals back where the field still holds our proxy (the scenario may have
     * replaced it meanwhile). Idempotent; safe after a failed install.
     */
    public void restore() {
        Field field = proxyField;
        for (int i = 0; i < proxies.size(); i++) {
            Object owner = proxiedOwners.get(i);
            if (get(field, owner) == proxies.get(i)) {
                set(field, owner, originals.get(i));
            } else {
                replacedWhileProxied++;
            }
        }
        proxiedOwners.clear();
        originals.clear();
        proxies.clear();
    }

    /**
     * After the proxies were removed and a full collection ran: each way the scenario could see
     * them, as the report says it (none when it could not); first, where the proxies stood in
     * another field than the node's (see {@link #proxyTarget}), which.
     */
    public String[] proxyLeaks() {
        Field field = proxyField;
        List<String> out = new ArrayList<>();
        if (field != null && !field.equals(this.field) && !removedProxies.isEmpty()) {
            out.add("the proxy was in " + simpleName(field.getDeclaringClass().getName()) + "." + field.getName()
                    + ", a field that holds the same object as the node's "
                    + simpleName(this.field.getDeclaringClass().getName()) + "." + this.field.getName()
                    + " (declared " + this.field.getType().getTypeName() + ", which a proxy cannot stand in)");
        }
        int alive = 0;
        for (WeakReference<Object> proxy : removedProxies) {
            if (proxy.get() != null) {
                alive++;
            }
        }
        if (alive > 0) {
            out.add("the scenario kept " + alive + " of the recording proxies after they were taken out of "
                    + simpleName(field.getDeclaringClass().getName()) + "." + field.getName()
                    + " (it stored the field's value elsewhere during the attribution loops); that reference now"
                    + " holds the proxy, which forwards to the original but is not the same object");
        }
        if (replacedWhileProxied > 0) {
            out.add("the scenario replaced " + simpleName(field.getDeclaringClass().getName()) + "." + field.getName()
                    + " while a recording proxy was in it; calls through the new value were not recorded");
        }
        return out.toArray(new String[0]);
    }

    /** Classes of what the node's objects hold that allocation sampling looks for, at most. */
    private static final int MAX_REFERENCED_CLASSES = 16;

    /**
     * The classes allocation sampling looks for: those of {@code growingChildren} (the node's
     * growing children's classes, as reports name them), else (a node that grows in references
     * only, whose children are reached first through another path, or a thread group) the
     * node's own classes, since an array copied on every add is new each time, and unless
     * {@code ownOnly} the classes of the objects the node's objects hold, which may be new.
     */
    public Class<?>[] samplingClasses(String[] growingChildren, boolean ownOnly) {
        Set<Class<?>> out = new LinkedHashSet<>(Arrays.asList(classesNamed(growingChildren)));
        if (!out.isEmpty()) {
            return out.toArray(new Class<?>[0]);
        }
        for (Object target : targets) {
            out.add(target.getClass());
        }
        if (!ownOnly) {
            List<Object> held = new ArrayList<>(elements(targets, "", "[x]"));
            held.addAll(elements(targets, "", "[key]"));
            for (Object object : held) {
                if (object != null && out.size() < targets.size() + MAX_REFERENCED_CLASSES) {
                    out.add(object.getClass());
                }
            }
        }
        return out.toArray(new Class<?>[0]);
    }

    /** The classes named (as reports name them), loaded through the scenario's loader; unknown names are skipped. */
    private Class<?>[] classesNamed(String[] names) {
        List<Class<?>> out = new ArrayList<>();
        for (String name : names) {
            String binary = name;
            int dimensions = 0;
            while (binary.endsWith("[]")) {
                binary = binary.substring(0, binary.length() - 2);
                dimensions++;
            }
            try {
                Class<?> type = PRIMITIVES.containsKey(binary) ? PRIMITIVES.get(binary) : Class.forName(binary, false, loader);
                for (int i = 0; i < dimensions; i++) {
                    type = type.arrayType();
                }
                if (!type.isPrimitive() && !out.contains(type)) {
                    out.add(type);
                }
            } catch (ClassNotFoundException | LinkageError e) {
                // A hidden or lambda class (its name lost its suffix): it cannot be named.
            }
        }
        return out.toArray(new Class<?>[0]);
    }

    private static final Map<String, Class<?>> PRIMITIVES = Map.of(
            "boolean", boolean.class, "byte", byte.class, "char", char.class, "short", short.class,
            "int", int.class, "long", long.class, "float", float.class, "double", double.class);

    /**
     * Where {@code type} was loaded from: its code source's URL ({@code file:/app/classes/},
     * {@code file:/repo/guava-33.8.0-jre.jar}), or null for the JDK's own classes.
     */
    public static String codeSource(Class<?> type) {
        ProtectionDomain domain = type.getProtectionDomain();
        CodeSource source = domain == null ? null : domain.getCodeSource();
        URL location = source == null ? null : source.getLocation();
        return location == null ? null : location.toString();
    }

    /** Recorded proxy calls: each is the method name, then the frames, separated by newlines. */
    public String[] proxyStacks() {
        synchronized (stacks) {
            return stacks.toArray(new String[0]);
        }
    }

    /**
     * Recorded remove-like proxy calls: each is the method name, a tab and {@code 1} if the call
     * removed something ({@code 0} if the size did not change), then the frames, separated by
     * newlines.
     */
    public String[] proxyRemoves() {
        synchronized (removeStacks) {
            return removeStacks.toArray(new String[0]);
        }
    }

    // Kept by before made at (issue 32): the owner-field watch and the link classes.

    /**
     * The entry classes of containers made of entry objects: container class, then the classes
     * of the objects its add allocates and links (checked on JDK 17 and 25 by a jvm_layer test).
     */
    static final String[][] ENTRY_CLASSES = {
        {"java.util.HashMap", "java.util.HashMap$Node", "java.util.HashMap$TreeNode"},
        {"java.util.LinkedHashMap", "java.util.LinkedHashMap$Entry"},
        {"java.util.TreeMap", "java.util.TreeMap$Entry"},
        {"java.util.Hashtable", "java.util.Hashtable$Entry"},
        {"java.util.LinkedList", "java.util.LinkedList$Node"},
        {"java.util.concurrent.ConcurrentHashMap",
            "java.util.concurrent.ConcurrentHashMap$Node", "java.util.concurrent.ConcurrentHashMap$TreeNode"},
        {"java.util.concurrent.ConcurrentLinkedQueue", "java.util.concurrent.ConcurrentLinkedQueue$Node"},
        {"java.util.concurrent.ConcurrentLinkedDeque", "java.util.concurrent.ConcurrentLinkedDeque$Node"},
        {"java.util.concurrent.LinkedBlockingQueue", "java.util.concurrent.LinkedBlockingQueue$Node"},
        {"java.util.concurrent.LinkedBlockingDeque", "java.util.concurrent.LinkedBlockingDeque$Node"},
        {"java.util.concurrent.ConcurrentSkipListMap", "java.util.concurrent.ConcurrentSkipListMap$Node"},
    };

    /** Every entry class name of {@link #ENTRY_CLASSES}, for the test that they exist. */
    public static String[] entryClassNames() {
        List<String> out = new ArrayList<>();
        for (String[] rule : ENTRY_CLASSES) {
            out.addAll(Arrays.asList(rule).subList(1, rule.length));
        }
        return out.toArray(new String[0]);
    }

    /**
     * The classes whose new objects are made by the call that links an object under the node:
     * the entry classes of the containers among the node's objects and the objects their fields
     * hold (one field below), or that arrays among them are arrays of; and the node's own
     * classes, since an array replaced on every add, or a new entry of a linked list of the
     * node's class, is allocated by the add.
     */
    public Class<?>[] linkClasses() {
        Set<Class<?>> out = new LinkedHashSet<>();
        if (failure != null || threadGroup != null) {
            return new Class<?>[0];
        }
        List<Object> candidates = new ArrayList<>();
        for (Object target : targets) {
            candidates.add(target);
            // Replaced on every add (an array copied), or a linked list of the node's class
            // (the new entry becomes the node's next or its new tail).
            out.add(target.getClass());
            if (target.getClass().isArray()) {
                addEntryClasses(target.getClass().getComponentType(), true, out);
                continue;
            }
            for (Class<?> c = target.getClass(); c != null; c = c.getSuperclass()) {
                for (Field f : c.getDeclaredFields()) {
                    if (!Modifier.isStatic(f.getModifiers()) && !f.getType().isPrimitive()) {
                        candidates.add(get(f, target));
                    }
                }
            }
        }
        for (Object candidate : candidates) {
            if (candidate != null) {
                addEntryClasses(candidate.getClass(), false, out);
            }
        }
        return out.toArray(new Class<?>[0]);
    }

    /**
     * Adds the entry classes of {@code type} (a container of {@link #ENTRY_CLASSES}, or one of
     * its subclasses), or {@code type} itself when {@code element} and it is an entry class.
     */
    private static void addEntryClasses(Class<?> type, boolean element, Set<Class<?>> out) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (String[] rule : ENTRY_CLASSES) {
                for (int i = 1; i < rule.length; i++) {
                    boolean matches = element ? c.getName().equals(rule[i]) : c.getName().equals(rule[0]);
                    if (matches) {
                        loadEntryClass(rule[i], out);
                    }
                }
            }
        }
    }

    /** Adds the JDK class {@code name} to {@code out}, if this JDK has it. */
    private static void loadEntryClass(String name, Set<Class<?>> out) {
        try {
            out.add(Class.forName(name, false, null));
        } catch (ClassNotFoundException | LinkageError e) {
            // Not in this JDK: the jvm_layer test says which.
        }
    }

    /** The fields an owner-field watch watches (see {@link #ownerPlan}). */
    private final List<Field> ownerFields = new ArrayList<>();

    /**
     * The owner-field watch for a node whose objects are arrays held in an instance field of
     * the JDK's or a library's object ({@code TaskQueue.queue}): the non-final instance fields
     * of the owners' class and its superclasses, 3 strings each (name, JNI descriptor, "1" for
     * an int field); none when it does not fit (a user's owner, a static field, an entry, not
     * arrays, owners of several classes). The add that stores into such an array writes one of
     * its owner's fields (its size) in the same call, which a store into an array does not.
     *
     * @param scenarioSource the scenario's (or test's) code source: code from it is the user's
     */
    public String[] ownerPlan(String scenarioSource) {
        ownerFields.clear();
        if (failure != null || threadGroup != null || field == null || targets.isEmpty()
                || Modifier.isStatic(field.getModifiers()) || owners.isEmpty()) {
            return new String[0];
        }
        for (Object target : targets) {
            if (!target.getClass().isArray()) {
                return new String[0];
            }
        }
        Class<?> ownerClass = owners.get(0).getClass();
        for (Object owner : owners) {
            if (owner.getClass() != ownerClass) {
                return new String[0];
            }
        }
        String source = codeSource(ownerClass);
        if (source != null && (source.endsWith("/") || source.equals(scenarioSource))) {
            return new String[0];
        }
        List<String> out = new ArrayList<>();
        for (Class<?> c = ownerClass; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                int modifiers = f.getModifiers();
                if (Modifier.isStatic(modifiers) || Modifier.isFinal(modifiers)) {
                    continue;
                }
                ownerFields.add(f);
                out.add(f.getName());
                out.add(descriptor(f.getType()));
                out.add(f.getType() == int.class ? "1" : "0");
            }
        }
        return out.toArray(new String[0]);
    }

    /** The declaring class of each field of {@link #ownerPlan}, in its order, for JNI. */
    public Class<?>[] ownerFieldClasses() {
        Class<?>[] out = new Class<?>[ownerFields.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = ownerFields.get(i).getDeclaringClass();
        }
        return out;
    }

    /** The owners an owner-field watch is filtered to. */
    public Object[] ownerObjects() {
        return owners.toArray();
    }

    /** The owners' class, simple name, for the report. */
    public String ownerLabel() {
        return owners.isEmpty() ? "" : simpleName(owners.get(0).getClass().getName());
    }

    /** The fields a value-filtered watch watches (see {@link #valueFieldPlan}). */
    private final List<Field> valueFields = new ArrayList<>();

    /**
     * The reference fields through which the node's children are linked below its objects,
     * from the children's {@code INSTANCE_FIELD} steps ({@code ownersAndNames}: the declaring
     * class's name, then the field's, per step): 2 strings each (name, JNI descriptor). A watch
     * on them keeps the writes whose value is a new object ({@code parent.left = node}).
     * Fields of classes the scenario's loader cannot load, and primitive fields, are left out.
     */
    public String[] valueFieldPlan(String[] ownersAndNames) {
        valueFields.clear();
        List<String> out = new ArrayList<>();
        if (failure != null || threadGroup != null) {
            return new String[0];
        }
        for (int i = 0; i + 1 < ownersAndNames.length; i += 2) {
            Class<?>[] owner = classesNamed(new String[] {ownersAndNames[i]});
            if (owner.length == 0) {
                continue;
            }
            Field f = findField(owner[0], ownersAndNames[i], ownersAndNames[i + 1]);
            if (f == null || Modifier.isStatic(f.getModifiers()) || valueFields.contains(f)) {
                continue;
            }
            valueFields.add(f);
            out.add(f.getName());
            out.add(descriptor(f.getType()));
        }
        return out.toArray(new String[0]);
    }

    /** The declaring class of each field of {@link #valueFieldPlan}, in its order, for JNI. */
    public Class<?>[] valueFieldClasses() {
        Class<?>[] out = new Class<?>[valueFields.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = valueFields.get(i).getDeclaringClass();
        }
        return out;
    }
}
