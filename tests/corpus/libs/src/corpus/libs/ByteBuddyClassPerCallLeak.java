/*
 * ByteBuddyClassPerCallLeak: a handler class is generated with Byte Buddy for every request, with
 * a name per request, and loaded into one long-lived ByteArrayClassLoader (an application-wide
 * generator loader): the loader keeps every class it defined (the VM adds each to its
 * ClassLoader.classes list), so the classes stay as long as the loader lives. The fix is a
 * TypeCache keyed by what the class depends on (ByteBuddyTypeCacheClean).
 *
 * Expected:      LEAK
 * Library:       net.bytebuddy:byte-buddy 1.18.17
 * Growing nodes: 4. STATIC_FIELD ByteBuddyClassPerCallLeak.GENERATED -> ByteArrayClassLoader,
 *                the loader itself (CLASS children, one per class); and the parallelLockMap
 *                (INSTANCE_FIELD ClassLoader.parallelLockMap -> ConcurrentHashMap, a lock Object
 *                per class name ever asked) of each parallel-capable loader the generator loader
 *                delegates the new name to: the platform loader (GcRoot(StickyClass)
 *                ClassLoaders.PLATFORM_LOADER), the application loader and the scenario's
 *                URLClassLoader (reached as threads' context loaders)
 * Growth:        +1 class per loop
 * Growing call:  corpus.libs.ByteBuddyClassPerCallLeak.run(ByteBuddyClassPerCallLeak.java:36)
 *                  (into DynamicType.Unloaded.load -> InjectionClassLoader.Strategy.load
 *                  -> ByteArrayClassLoader.doDefineClasses -> ClassLoader.defineClass)
 * Measured:      heapgrowth at ca26e50 (issue 32, step 1), default schedule, JSON, JDK 17,
 *                3 runs: exit 1 in 3 of 3, the same 4 nodes; +504 between loops 496 and 1000 in
 *                each (classes; lock Objects; in the application loader also the String keys).
 *                Attribution (all 3, every node): attributed, allocated at, place to look
 *                ByteBuddyClassPerCallLeak.run(:36) (= GROWS): the loader node's Class objects at
 *                ClassLoader.defineClass1, the lock maps' Objects at
 *                ClassLoader.getClassLoadingLock (670), 9 to 16 frames of the JDK and Byte Buddy
 *                between; the application loader's node has a second stack, the name String
 *                made at :33. The parallelLockMap paths go through a field reflection hides
 *                (read through JNI since step 1 of issue 32)
 */
package corpus.libs;

import java.util.Collections;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.dynamic.loading.ByteArrayClassLoader;
import net.bytebuddy.dynamic.loading.InjectionClassLoader;

public class ByteBuddyClassPerCallLeak implements Runnable {
    private static final ByteArrayClassLoader GENERATED =
            new ByteArrayClassLoader(ByteBuddyClassPerCallLeak.class.getClassLoader(), false, Collections.emptyMap());
    private int loop;

    @Override
    public void run() {
        loop++;
        new ByteBuddy()
                .subclass(Object.class)
                .name("corpus.libs.gen.Handler" + loop)
                .make()
                .load(GENERATED, InjectionClassLoader.Strategy.INSTANCE); // GROWS
    }
}
