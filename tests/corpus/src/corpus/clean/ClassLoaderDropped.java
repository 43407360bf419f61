/*
 * ClassLoaderDropped: the clean twin of leaks.ClassLoaderLeak. Every loop still makes a new
 * corpus.app.PluginLoader, defines its own copy of corpus.app.GreetingPlugin and starts an
 * instance, but stops it at the end of the loop and keeps no reference: the instance, its class
 * and its loader are garbage when run() returns, and a full GC unloads the class.
 *
 * Expected:      CLEAN (not reported)
 * Watched:       no PluginLoader, no GreetingPlugin class or instance alive between loops (after
 *                a full GC; before it, the dead loaders and classes are still in the heap).
 *                JDK residue: each plugin class links one string-concatenation call site, whose
 *                MethodHandleNatives$CallSiteContext the JDK's common Cleaner holds (through a
 *                CleanerImpl$PhantomCleanableRef, strongly, in the cleaner's list) until its
 *                thread runs after the GC that unloaded the class. A dump right after that GC
 *                still holds 2 such objects per loop since the previous full GC: constant with
 *                evenly spaced dumps, rising if the gap between dumps widens (like WeakMapClean)
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 0 PluginLoaders, 0
 *                GreetingPlugin classes or instances; loaded-class count flat from loop 5;
 *                CallSiteContext 6, 10, 2, 4, 8, 16, 32, 64, 128, 256 (= loops since the previous
 *                checkpoint, the residue above), so JVM live objects +1.00 per loop with these
 *                doubling gaps
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: not
 *                reported (7 loops, 3 snapshots), exit 0
 * Shark:         not reported
 */
package corpus.clean;

import corpus.app.Plugin;
import corpus.app.PluginLoader;

public class ClassLoaderDropped implements Runnable {
    public static final String PLUGIN_CLASS = "corpus.app.GreetingPlugin";

    private final byte[] pluginBytes;

    private int loop;
    private int greetingChars;

    public ClassLoaderDropped() {
        pluginBytes = PluginLoader.readClassBytes(ClassLoaderDropped.class.getClassLoader(), PLUGIN_CLASS);
    }

    @Override
    public void run() {
        loop++;
        ClassLoader host = ClassLoaderDropped.class.getClassLoader();
        PluginLoader loader = new PluginLoader("plugin-" + loop, host, PLUGIN_CLASS, pluginBytes);
        Plugin plugin = loader.newPlugin();
        plugin.start("deployment-" + loop);
        greetingChars += plugin.greeting().length();
        plugin.stop();
    }
}
