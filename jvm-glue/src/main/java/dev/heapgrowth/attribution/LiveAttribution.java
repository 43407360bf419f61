package dev.heapgrowth.attribution;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The live side of attribution for one growing node: follows the node's path from its GC root
 * through the running scenario's objects, picks a recorder, and installs and removes recording
 * proxies. The JVMTI recorders (field-modification watches) are driven from Rust; this class
 * only names what they must watch.
 *
 * <p>All the reflection of attribution lives here. Fields are found by reflection but read and
 * written through JNI ({@link #readField}, {@link #writeField}, native methods heapgrowth
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
    };

    private final ClassLoader loader;
    private final Thread scenarioThread;
    /** The object a {@code LOCAL} root step stands for (the JUnit test instance), or null. */
    private final Object instance;
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
    /** Watched container field (kind "container"). */
    private Field containerField;

    // Proxy recording state.
    private final List<Object> proxiedOwners = new ArrayList<>();
    private final List<Object> originals = new ArrayList<>();
    private final List<Object> proxies = new ArrayList<>();
    private final List<String> stacks = Collections.synchronizedList(new ArrayList<>());

    private LiveAttribution(ClassLoader loader, Thread scenarioThread, Object instance) {
        this.loader = loader;
        this.scenarioThread = scenarioThread;
        this.instance = instance;
    }

    /**
     * Follows {@code steps} (4 strings per step: kind, owner, name, target) from the root.
     * Never throws for a path it cannot follow: {@link #plan} then says why.
     *
     * @param loader the scenario's class loader (static-field roots are loaded through it)
     * @param scenarioThread the thread the loops run on (thread-object roots)
     * @param instance the object a {@code LOCAL} step right below the root stands for (the
     *     JUnit test instance), or null
     */
    public static LiveAttribution open(ClassLoader loader, Thread scenarioThread, Object instance, String[] steps) {
        LiveAttribution attribution = new LiveAttribution(loader, scenarioThread, instance);
        try {
            attribution.walk(steps);
        } catch (RuntimeException | LinkageError e) {
            attribution.failure = "cannot follow the path in the running JVM: " + e;
        }
        return attribution;
    }

    private void walk(String[] steps) {
        if (steps.length == 4 && steps[2].equals("ThreadObject") && !steps[3].isEmpty()) {
            // A group of threads that grows: its own objects are what to attribute.
            threadGroup = steps[3];
            targets = threadsNamed(threadGroup);
            return;
        }
        if (steps.length < 8 || steps.length % 4 != 0) {
            failure = "the path has no step below its root";
            return;
        }
        String root = steps[2];
        List<Object> current;
        boolean classRoot = false;
        boolean threadRoot = false;
        switch (root) {
            case "Class":
            case "StickyClass":
                classRoot = true;
                current = List.of();
                break;
            case "ThreadObject":
                current = threadsNamed(steps[3]);
                threadRoot = true;
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
            switch (kind) {
                case "STATIC_FIELD": {
                    Class<?> ownerClass = classNamed(current, owner);
                    Field f = findField(ownerClass, owner, name);
                    if (f == null) {
                        failure = "no field " + name + " in " + owner;
                        return;
                    }
                    if (last) {
                        field = f;
                        previous = List.of();
                    }
                    next = filter(Collections.singletonList(get(f, null)), target);
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
                    for (Object object : current) {
                        Field found = findField(object.getClass(), owner, name);
                        if (found == null) {
                            continue;
                        }
                        f = found;
                        next.add(get(found, object));
                    }
                    if (f == null && threadRoot && i == 4 && current.size() == 1) {
                        // A thread-object root other than the scenario thread: try them all.
                        current = new ArrayList<>(Thread.getAllStackTraces().keySet());
                        i -= 4;
                        continue;
                    }
                    if (last) {
                        field = f;
                    }
                    next = filter(next, target);
                    break;
                }
                case "ARRAY_ENTRY":
                    next = filter(elements(current, owner, name), target);
                    break;
                case "CLASS":
                    next = classesDefinedBy(current, name);
                    break;
                case "LOCAL":
                    if (i == 4 && instance != null && instance.getClass().getName().equals(target)) {
                        // A stack local of the loop's caller holding the test instance.
                        next = List.of(instance);
                        break;
                    }
                    failure = "the node is held by a local variable of a running method (LOCAL "
                            + owner + "); heapgrowth watches fields and containers, not stack frames";
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
                failure = "no live object found at " + kind + " " + owner + "." + name + " -> " + target
                        + " (the path changed since the last snapshot)";
                return;
            }
            previous = current;
            current = next;
        }
        owners = previous;
        targets = current;
    }

    /**
     * The threads a thread root group stands for: those whose name matches {@code pattern}
     * (digit runs written {@code *}, as the path tree groups them), or the scenario's thread
     * when the dump had no name.
     */
    private List<Object> threadsNamed(String pattern) {
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
     * The classes named {@code className} that a {@code CLASS} step reaches from {@code owners}:
     * those the class loaders among them defined, or the class of an instance among them.
     */
    private static List<Object> classesDefinedBy(List<Object> owners, String className) {
        List<Object> out = new ArrayList<>();
        for (Object loader : owners) {
            if (!(loader instanceof ClassLoader)) {
                if (loader != null && loader.getClass().getName().equals(className)) {
                    out.add(loader.getClass());
                }
                continue;
            }
            try {
                Class<?> c = Class.forName(className, false, (ClassLoader) loader);
                if (c.getClassLoader() == loader) {
                    out.add(c);
                }
            } catch (ClassNotFoundException | LinkageError e) {
                // Not defined by this loader (a hidden class has no name to look up).
            }
        }
        return out;
    }

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
     * The recorder for this node: {@code {"proxy", label}}, {@code {"field", class, field,
     * descriptor, static ("1"/"0"), label}} for a watch on the node's own field, {@code
     * {"container", class, field, descriptor, "0", label}} for a watch on the containers'
     * size field, or {@code {"none", reason}}.
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
        Object sample = targets.get(0);
        boolean isContainer = sample instanceof Collection || sample instanceof Map;
        if (field != null && isContainer) {
            int modifiers = field.getModifiers();
            Class<?> declared = field.getType();
            boolean collectionInterface = declared.isInterface()
                    && (Collection.class.isAssignableFrom(declared) || Map.class.isAssignableFrom(declared));
            if (collectionInterface && !Modifier.isFinal(modifiers)) {
                return new String[] {"proxy", field.getName()};
            }
        }
        if (isContainer) {
            String[] container = containerPlan();
            if (container != null) {
                return container;
            }
            return fieldPlanOr("the node holds a " + sample.getClass().getName()
                    + " (or containers of several classes), whose internal state heapgrowth does not know how to watch");
        }
        return fieldPlanOr("the node is reached through "
                + (field == null ? "an array or collection entry" : "a final field")
                + " and is neither a Collection nor a Map");
    }

    /** The watch on the containers' size field, or null if they are not all of one known kind. */
    private String[] containerPlan() {
        Field watched = containerFieldOf(targets.get(0).getClass());
        if (watched == null) {
            return null;
        }
        for (Object target : targets) {
            if (!watched.equals(containerFieldOf(target.getClass()))) {
                return null;
            }
        }
        containerField = watched;
        return new String[] {"container", watched.getDeclaringClass().getName(), watched.getName(),
            descriptor(watched.getType()), "0", simpleName(watched.getDeclaringClass().getName())};
    }

    /**
     * After the proxy failed because the scenario casts the field to its concrete class: the
     * container watch instead, which changes nothing the scenario sees. Returns the new plan.
     */
    public String[] withoutProxy() {
        String[] container = containerPlan();
        plan = container != null ? container
                : new String[] {"none", "the code casts the field to its concrete class, which fails while a recording "
                        + "proxy is in it, and heapgrowth cannot watch a " + targets.get(0).getClass().getName()};
        return plan;
    }

    private String[] fieldPlanOr(String reason) {
        if (field == null || Modifier.isFinal(field.getModifiers())) {
            // Nothing to watch: the allocation stacks of the node's new objects are what is left.
            return new String[] {"allocations", reason};
        }
        boolean isStatic = Modifier.isStatic(field.getModifiers());
        String owner = field.getDeclaringClass().getName();
        return new String[] {"field", owner, field.getName(), descriptor(field.getType()), isStatic ? "1" : "0",
            simpleName(owner) + "." + field.getName()};
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
            return targets.toArray();
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
        if (!"proxy".equals(plan()[0])) {
            return "no proxy plan";
        }
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
                        new RecordingHandler(original, stacks));
                set(field, owner, proxy);
                proxiedOwners.add(owner);
                originals.add(original);
                proxies.add(proxy);
            }
        } catch (RuntimeException e) {
            restore();
            return "cannot set " + field.getDeclaringClass().getName() + "." + field.getName() + ": " + e;
        }
        return proxies.isEmpty() ? "the field holds null in every owner" : null;
    }

    private ClassLoader proxyLoader() {
        ClassLoader l = field.getDeclaringClass().getClassLoader();
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
        for (int i = 0; i < proxies.size(); i++) {
            Object owner = proxiedOwners.get(i);
            if (get(field, owner) == proxies.get(i)) {
                set(field, owner, originals.get(i));
            }
        }
        proxiedOwners.clear();
        originals.clear();
        proxies.clear();
    }

    /**
     * The objects now under the node through its children's steps (4 strings per step: kind,
     * owner, name, target): the objects whose allocation stacks the allocation recorder keeps.
     */
    public Object[] childObjects(String[] childSteps) {
        List<Object> out = new ArrayList<>();
        for (int i = 0; i + 3 < childSteps.length; i += 4) {
            String kind = childSteps[i];
            String owner = childSteps[i + 1];
            String name = childSteps[i + 2];
            String target = childSteps[i + 3];
            List<Object> found = new ArrayList<>();
            if (kind.equals("GC_ROOT")) {
                // The node's own objects: the threads of a thread group, as they are now.
                out.addAll(threadsNamed(target));
                continue;
            } else if (kind.equals("ARRAY_ENTRY")) {
                found = elements(targets, owner, name);
            } else if (kind.equals("INSTANCE_FIELD")) {
                for (Object object : targets) {
                    Field f = findField(object.getClass(), owner, name);
                    if (f != null) {
                        found.add(get(f, object));
                    }
                }
            }
            out.addAll(filter(found, target));
        }
        return out.toArray();
    }

    /** The names of the classes of the node's objects, each once. */
    public String[] targetClassNames() {
        Set<String> names = new LinkedHashSet<>();
        for (Object target : targets) {
            names.add(target.getClass().getName());
        }
        return names.toArray(new String[0]);
    }

    /** The classes named (as reports name them), loaded through the scenario's loader; unknown names are skipped. */
    public Class<?>[] classesNamed(String[] names) {
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

    /** Recorded proxy calls: each is the method name, then the frames, separated by newlines. */
    public String[] proxyStacks() {
        synchronized (stacks) {
            return stacks.toArray(new String[0]);
        }
    }
}
