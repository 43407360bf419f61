/*
 * JulConfigListenerRemoved: clean twin of JulConfigListenerLeak. The same configuration listener
 * per settings screen, removed from the LogManager when the screen closes.
 *
 * Expected:      CLEAN
 * Growing node:  none: LogManager.listeners -> Collections$SynchronizedMap -> IdentityHashMap is
 *                empty between loops
 * Growth:        0
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 0 in 3 of 3, nothing reported, nothing leveled off (31 loops, 4
 *                snapshots)
 */
package corpus.attribution;

import java.util.logging.LogManager;

public class JulConfigListenerRemoved implements Runnable {
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
        LogManager manager = LogManager.getLogManager();
        manager.addConfigurationListener(reloader);
        manager.removeConfigurationListener(reloader);
    }
}
