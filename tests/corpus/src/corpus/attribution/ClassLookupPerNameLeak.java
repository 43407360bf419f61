/*
 * ClassLookupPerNameLeak: a long-lived, parallel-capable plugin loader (a static field) is asked
 * for a plugin class by a name made per call ("corpus.plugins.P" + loop), as a host that probes
 * for optional plugins by request parameter does. No such class exists: loadClass throws
 * ClassNotFoundException, which the scenario catches. Before looking, a parallel-capable loader
 * takes a lock per name (ClassLoader.getClassLoadingLock), a new Object put into its
 * parallelLockMap (a ConcurrentHashMap in a final field) and never removed, found or not.
 *
 * Expected:      LEAK
 * Growing node:  STATIC_FIELD corpus.attribution.ClassLookupPerNameLeak.PLUGINS
 *                  -> corpus.app.PluginDirectory
 *                  -> INSTANCE_FIELD java.lang.ClassLoader.parallelLockMap -> ConcurrentHashMap
 * Growth:        +1 entry per loop (ConcurrentHashMap$Node, the name String + byte[], the lock
 *                Object; the table is replaced when it resizes)
 * Growing call:  corpus.attribution.ClassLookupPerNameLeak.run(ClassLookupPerNameLeak.java:45)
 * Measured:      heapgrowth on branch cls2 (issue 32, debug build), default schedule, JSON, JDK 17,
 *                10 runs: exit 1 in 10 of 10, 4 nodes every run, each
 *                `-> INSTANCE_FIELD ClassLoader.parallelLockMap -> ConcurrentHashMap`: the plugin
 *                loader's and its parents' (the scenario's URLClassLoader, the AppClassLoader,
 *                the PlatformClassLoader: loadClass delegates, and each parallel-capable parent
 *                takes its own lock per name), +504 entries between loops 496 and 1000. All 4
 *                attributed in 10 of 10 by link allocations (the map's ConcurrentHashMap$Node,
 *                allocated by putIfAbsent in getClassLoadingLock): "4 call(s) to loadClass()" at
 *                :45. No class is defined, so the class-definition recorder has nothing to see
 *                here. With --no-agent: not attributed, the agent's absence and the proxy's
 *                unfit field (a ConcurrentHashMap, final) said
 */
package corpus.attribution;

import corpus.app.PluginDirectory;

public class ClassLookupPerNameLeak implements Runnable {
    private static final PluginDirectory PLUGINS =
            new PluginDirectory(ClassLookupPerNameLeak.class.getClassLoader());
    private int loop;
    private int missing;

    @Override
    public void run() {
        loop++;
        String name = "corpus.plugins.P" + loop;
        // Bug: every distinct name leaves a lock in the loader's parallelLockMap; the names
        // should come from a fixed set (or the lookup go through a cache of known plugins).
        try {
            PLUGINS.loadClass(name); // GROWS
        } catch (ClassNotFoundException e) {
            missing++;
        }
    }
}
