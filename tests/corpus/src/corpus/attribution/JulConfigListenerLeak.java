/*
 * JulConfigListenerLeak: every loop a settings screen opens and asks java.util.logging to tell it
 * when the logging configuration is re-read, LogManager.getLogManager()
 * .addConfigurationListener(reloader), and never removes the listener. The LogManager is the
 * JVM's one instance (a static of a boot class), so it keeps every screen's Reloader. The growth
 * is inside JDK internals, reached only through fields of java.util.logging (module
 * java.logging, not opened to the unnamed module): the scenario keeps no reference to it.
 * (Unlike corpus.leaks.JulHandlerLeak, whose handlers hang off a Logger the scenario holds in a
 * static field.)
 *
 * Expected:      LEAK
 * Growing node:  GcRoot(StickyClass) -> STATIC_FIELD java.util.logging.LogManager.manager
 *                  -> java.util.logging.LogManager
 *                  -> INSTANCE_FIELD LogManager.listeners -> java.util.Collections$SynchronizedMap
 *                  -> INSTANCE_FIELD SynchronizedMap.m -> java.util.IdentityHashMap
 *                  => corpus.attribution.JulConfigListenerLeak$Reloader (key and value alike:
 *                     with no security manager the map maps the listener to itself)
 * Growth:        +1 Reloader per loop (3 objects: Reloader, screen name String + byte[]); the
 *                IdentityHashMap's table is replaced when it resizes
 * Growing call:  corpus.attribution.JulConfigListenerLeak.run(JulConfigListenerLeak.java:64)
 *                  (into LogManager.addConfigurationListener -> listeners.putIfAbsent)
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 1 in 3 of 3; node GcRoot(StickyClass) -> STATIC_FIELD
 *                LogManager.manager -> LogManager -> INSTANCE_FIELD LogManager.listeners ->
 *                Collections$SynchronizedMap (the wrapper, not the IdentityHashMap), children at
 *                loops 3, 7, 15, 31, 124, 496, 1000: 4, 8, 16, 32, 125, 497, 1001 (the Reloaders
 *                and the map's cached values view). Attribution (all 3): not_attributed, "cannot
 *                follow the path in the running JVM: ... Unable to make field private static final
 *                java.util.logging.LogManager java.util.logging.LogManager.manager accessible:
 *                module java.logging does not "opens java.util.logging" to unnamed module @..."
 *                (the wall is the first step)
 */
package corpus.attribution;

import java.util.logging.LogManager;

public class JulConfigListenerLeak implements Runnable {
    /** Re-reads a screen's log level when the logging configuration changes. */
    static final class Reloader implements Runnable {
        private final String screen;
        private int reloads;

        Reloader(String screen) {
            this.screen = screen;
        }

        @Override
        public void run() {
            reloads++;
        }

        @Override
        public String toString() {
            return screen + " (" + reloads + " reloads)";
        }
    }

    private int loop;

    @Override
    public void run() {
        loop++;
        Reloader reloader = new Reloader("settings-" + loop);
        LogManager.getLogManager().addConfigurationListener(reloader); // GROWS
        // Bug: the screen never calls removeConfigurationListener(reloader) when it closes.
    }
}
