/*
 * DefinedClassPerCallLeak: a long-lived generator loader (a static field) defines a new class per
 * call, as a proxy or bytecode generator does for each request: a copy of
 * corpus.app.GeneratedHandler000000 named GeneratedHandler000001, 000002, ... Nothing but the
 * loader keeps the classes, and the loader keeps every class it defined (the VM adds each to its
 * ClassLoader.classes list), so they stay as long as it lives.
 *
 * Expected:      LEAK
 * Growing node:  STATIC_FIELD corpus.attribution.DefinedClassPerCallLeak.GENERATOR
 *                  -> corpus.app.TemplateLoader, the loader itself: its children are its classes
 *                  (CLASS TemplateLoader -> class corpus.app.GeneratedHandlerNNNNNN, one child
 *                  per class), not ClassLoader.classes, which the search reaches after them
 * Growth:        +1 class per loop
 * Growing call:  corpus.app.TemplateLoader.define(TemplateLoader.java:30) (defineClass), via
 *                corpus.attribution.DefinedClassPerCallLeak.run(DefinedClassPerCallLeak.java:27)
 * Measured:      heapgrowth at ca26e50 (issue 32, step 1), default schedule, JSON, JDK 17,
 *                3 runs: exit 1 in 3 of 3; the one node above, 1008 objects (+504) at loop 1000.
 *                Attribution (all 3): attributed, allocated at (sampling of the node's new
 *                java.lang.Class objects), 1 stack: "4 object(s) allocated" at
 *                ClassLoader.defineClass1 < defineClass < TemplateLoader.define(:30) (= GROWS,
 *                the place to look) < DefinedClassPerCallLeak.run(:27)
 */
package corpus.attribution;

import corpus.app.TemplateLoader;

public class DefinedClassPerCallLeak implements Runnable {
    private static final TemplateLoader GENERATOR =
            new TemplateLoader(DefinedClassPerCallLeak.class.getClassLoader());
    private int loop;

    @Override
    public void run() {
        loop++;
        GENERATOR.define(loop); // VIA
    }
}
