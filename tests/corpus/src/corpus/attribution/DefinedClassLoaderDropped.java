/*
 * DefinedClassLoaderDropped: the clean twin of DefinedClassPerCallLeak. Each loop makes a new
 * generator loader, defines one class in it and drops the loader: loader and class become garbage
 * together (the class is unloaded at the next full collection).
 *
 * Expected:      CLEAN
 * Growing node:  none
 * Growth:        0 (one loader and one class per loop, all garbage)
 * Measured:      heapgrowth at ca26e50 (issue 32, step 1), default schedule, JSON, JDK 17,
 *                3 runs: exit 0 in 3 of 3, "no growing objects after 31 loops in 4 snapshots"
 */
package corpus.attribution;

import corpus.app.TemplateLoader;

public class DefinedClassLoaderDropped implements Runnable {
    private int loop;

    @Override
    public void run() {
        loop++;
        new TemplateLoader(DefinedClassLoaderDropped.class.getClassLoader()).define(loop);
    }
}
