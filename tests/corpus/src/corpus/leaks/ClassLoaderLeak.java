/*
 * ClassLoaderLeak: the application-server redeploy leak. Every loop "redeploys" a plugin: a new
 * corpus.app.PluginLoader (a ClassLoader whose parent is the scenario's loader) defines its own
 * copy of corpus.app.GreetingPlugin from the class file bytes (read once, in the constructor,
 * through the parent's getResourceAsStream), and the host starts an instance. The host's registry
 * of deployed plugins is never cleared, so every old instance stays, and with it (through its
 * class) its class loader, the Class object and the class's statics.
 *
 * Expected:      LEAK
 * Growing field: STATIC_FIELD corpus.leaks.ClassLoaderLeak.deployed -> java.util.ArrayList
 *                (declared List, not final) => corpus.app.GreetingPlugin (a different class,
 *                same name, in every element). Everything else hangs off each element's class,
 *                not off a field: instance -> class GreetingPlugin (loader plugin-N)
 *                -> its loader (corpus.app.PluginLoader, ClassLoader.classes -> ArrayList of
 *                that one class, ClassLoader.packages -> ConcurrentHashMap with NamedPackage
 *                corpus.app, ...) and STATIC_FIELD GreetingPlugin.startsByLength -> int[16] of
 *                that class. A tool that does not follow the instance -> class edge sees only
 *                the GreetingPlugin instances (and its greeting String) grow.
 * Growth:        +1 GreetingPlugin instance, +1 class GreetingPlugin, +1 PluginLoader per loop:
 *                about 44 heap objects (the loader with its 3 ConcurrentHashMaps, classes
 *                ArrayList, unnamed Module, NamedPackage, NativeLibraries, name Strings; the
 *                Class with its default ProtectionDomain + CodeSource, reflection data
 *                (Constructor, accessors, SoftReference) from newInstance, the method handles
 *                of its linked string-concatenation call site, its statics; the instance and
 *                its greeting String), plus the class's metadata outside the heap
 * Growing call:  corpus.leaks.ClassLoaderLeak.run(ClassLoaderLeak.java:67)
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7, 11, 19, 35, 67, 131,
 *                259, 515 deployed plugins = live PluginLoaders = live GreetingPlugin instances =
 *                GreetingPlugin classes (histogram rows); the JVM's loaded-class count +1 per loop;
 *                JVM live objects +44 per loop (42.5 to 44.5 between runs at the last two
 *                checkpoints)
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: reported
 *                but MIS-REPORTED, exit 1: the growing node is GcRoot(Class) itself (every loaded
 *                class is a root; the text report prints no node line), children STATIC_FIELD
 *                GreetingPlugin.<resolved_references> -> Object[] and GreetingPlugin.startsByLength
 *                -> int[], 23 objects (+6); the deployed list is not named (it is below the growing
 *                root)
 * Shark:         not run
 */
package corpus.leaks;

import corpus.app.Plugin;
import corpus.app.PluginLoader;
import java.util.ArrayList;
import java.util.List;

public class ClassLoaderLeak implements Runnable {
    public static final String PLUGIN_CLASS = "corpus.app.GreetingPlugin";

    private static List<Plugin> deployed = new ArrayList<>();

    private final byte[] pluginBytes;

    private int loop;

    public ClassLoaderLeak() {
        pluginBytes = PluginLoader.readClassBytes(ClassLoaderLeak.class.getClassLoader(), PLUGIN_CLASS);
    }

    @Override
    public void run() {
        loop++;
        ClassLoader host = ClassLoaderLeak.class.getClassLoader();
        PluginLoader loader = new PluginLoader("plugin-" + loop, host, PLUGIN_CLASS, pluginBytes);
        Plugin plugin = loader.newPlugin();
        plugin.start("deployment-" + loop);
        deployed.add(plugin); // GROWS
        // Bug: the previous deployment is never stopped and removed from `deployed`.
    }
}
