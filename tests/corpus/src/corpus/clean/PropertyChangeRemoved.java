/*
 * PropertyChangeRemoved: the clean twin of leaks.PropertyChangeLeak. The panel adds its listener
 * when it is shown and removes it when it is hidden, within the same loop.
 *
 * Expected:      CLEAN (not reported)
 * Watched node:  STATIC_FIELD corpus.clean.PropertyChangeRemoved.settings -> corpus.app.ThemeSettings
 *                  -> INSTANCE_FIELD ThemeSettings.changes -> java.beans.PropertyChangeSupport
 *                  -> INSTANCE_FIELD PropertyChangeSupport.map
 *                     -> PropertyChangeSupport$PropertyChangeListenerMap:
 *                0 listeners between loops; removing the last listener sets ChangeListenerMap.map
 *                to null, so every loop makes (and drops) a new HashMap and a 1-slot array
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 0 listeners,
 *                ChangeListenerMap.map null; JVM live objects +0 per loop after loop 7
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: not
 *                reported (7 loops, 3 snapshots), exit 0
 * Shark:         not reported
 */
package corpus.clean;

import corpus.app.ThemeSettings;
import java.beans.PropertyChangeEvent;
import java.beans.PropertyChangeListener;

public class PropertyChangeRemoved implements Runnable {
    /** Repaints the panel when the theme changes. One instance for the whole run. */
    static final class Repainter implements PropertyChangeListener {
        private int repaints;

        @Override
        public void propertyChange(PropertyChangeEvent event) {
            repaints++;
        }
    }

    private static ThemeSettings settings = new ThemeSettings();

    private final PropertyChangeListener repainter = new Repainter();

    private int loop;

    @Override
    public void run() {
        loop++;
        settings.addListener(repainter);
        settings.setTheme(loop % 2 == 0 ? "light" : "dark");
        settings.removeListener(repainter);
    }
}
