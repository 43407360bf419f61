/*
 * ByteBuddyTypeCacheClean: the clean twin of ByteBuddyClassPerCallLeak. The handler class does not
 * depend on the request, so it is generated once: a Byte Buddy TypeCache keyed by a fixed key
 * returns the class generated on the first loop, into the same long-lived ByteArrayClassLoader.
 *
 * Expected:      CLEAN
 * Library:       net.bytebuddy:byte-buddy 1.18.17
 * Growing node:  none
 * Growth:        0 (one class, defined on loop 1)
 * Measured:      heapgrowth at ca26e50 (issue 32, step 1), default schedule, JSON, JDK 17,
 *                3 runs: exit 0 in 3 of 3, "no growing objects after 31 loops in 4 snapshots"
 */
package corpus.libs;

import java.util.Collections;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.TypeCache;
import net.bytebuddy.dynamic.loading.ByteArrayClassLoader;
import net.bytebuddy.dynamic.loading.InjectionClassLoader;

public class ByteBuddyTypeCacheClean implements Runnable {
    private static final ByteArrayClassLoader GENERATED =
            new ByteArrayClassLoader(ByteBuddyTypeCacheClean.class.getClassLoader(), false, Collections.emptyMap());
    private static final TypeCache<String> CACHE = new TypeCache<>(TypeCache.Sort.SOFT);
    private int loop;

    @Override
    public void run() {
        loop++;
        Class<?> handler = CACHE.findOrInsert(GENERATED, "handler", () -> new ByteBuddy()
                .subclass(Object.class)
                .name("corpus.libs.gen.Handler")
                .make()
                .load(GENERATED, InjectionClassLoader.Strategy.INSTANCE)
                .getLoaded());
        if (handler.getClassLoader() != GENERATED) {
            throw new IllegalStateException("loop " + loop + ": " + handler + " not in the generator loader");
        }
    }
}
