/*
 * LookupDefinedClassLeak: a class is generated per call and defined through a Lookup into the
 * generator's own class loader (the scenario's), as proxy and bytecode generators do on JDK 9
 * and later: a copy of corpus.app.GeneratedHandler000000 named GeneratedHandler000001, 000002,
 * ... The loader keeps every class it defined, and a class with static fields is a GC root of
 * its own, so the set of class roots grows.
 *
 * Expected:      LEAK
 * Growing nodes: 2. GcRoot(Class) itself, the root group of classes (each new class is a root
 *                through its internal statics: children STATIC_FIELD GeneratedHandlerNNNNNN.<init_lock>
 *                -> int[] and .<resolved_references> -> Object[], 2 per class); and
 *                GcRoot(ThreadObject "heapgrowth-scenario") -> Thread.contextClassLoader
 *                -> URLClassLoader -> INSTANCE_FIELD ClassLoader.classes -> ArrayList (a field
 *                reflection hides)
 * Growth:        +1 class per loop
 * Growing call:  corpus.app.LookupGenerator.define(LookupGenerator.java:29)
 *                (Lookup.defineClass), via
 *                corpus.attribution.LookupDefinedClassLeak.run(LookupDefinedClassLeak.java:41)
 * Measured:      heapgrowth at 99a8dca + the class-root recorder (issue 32), default schedule, JSON, JDK 17,
 *                3 runs: exit 1 in 3 of 3, the same 2 nodes. Attribution (all 3): the class
 *                roots: classes defined at (the recorder of every class defined, no path below
 *                the root), "4 class(es) defined", LookupGenerator.define(:29) (= GROWS) <
 *                run(:41); ClassLoader.classes: calls to defineClass() (container watch on
 *                ArrayList.size), 4, the same place. With --no-agent: the class roots "the node is
 *                the set of classes held as GC roots, ... needs heapgrowth's JVMTI agent
 *                (ClassLoad events) ...", ClassLoader.classes the no-agent reason and "a proxy
 *                needs a field declared as a Collection or Map interface, and ClassLoader.classes
 *                is a java.util.ArrayList"
 */
package corpus.attribution;

import corpus.app.LookupGenerator;

public class LookupDefinedClassLeak implements Runnable {
    private int loop;

    @Override
    public void run() {
        loop++;
        try {
            LookupGenerator.define(loop); // VIA
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
