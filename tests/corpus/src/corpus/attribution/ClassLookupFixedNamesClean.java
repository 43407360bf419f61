/*
 * ClassLookupFixedNamesClean: clean twin of ClassLookupPerNameLeak. The same long-lived,
 * parallel-capable plugin loader is asked for a missing plugin class on every loop, but the
 * names cycle through four: the loader's parallelLockMap keeps one lock per name, four from
 * loop 4 on.
 *
 * Expected:      CLEAN
 * Growing node:  none: STATIC_FIELD ClassLookupFixedNamesClean.PLUGINS -> PluginDirectory
 *                  -> ClassLoader.parallelLockMap, 4 entries from loop 4 on
 * Growth:        0 (4 entries from loop 4 on)
 * Measured:      heapgrowth on branch cls2 (debug build), default schedule, JSON, JDK 17, 10 runs:
 *                exit 0 in 10 of 10, nothing reported
 */
package corpus.attribution;

import corpus.app.PluginDirectory;

public class ClassLookupFixedNamesClean implements Runnable {
    private static final PluginDirectory PLUGINS =
            new PluginDirectory(ClassLookupFixedNamesClean.class.getClassLoader());
    private int loop;
    private int missing;

    @Override
    public void run() {
        loop++;
        String name = "corpus.plugins.P" + (loop % 4);
        try {
            PLUGINS.loadClass(name);
        } catch (ClassNotFoundException e) {
            missing++;
        }
    }
}
