/*
 * PropertyChangeLeak: a settings panel adds its (single) PropertyChangeListener to the theme bean
 * every time it is shown, and never removes it. java.beans.PropertyChangeSupport keeps
 * duplicates: the listener array gains one more reference to the same object per loop, and is
 * copied to a new array on every add.
 *
 * Expected:      LEAK
 * Growing node:  the java.beans.PropertyChangeListener[] under
 *                STATIC_FIELD corpus.leaks.PropertyChangeLeak.settings -> corpus.app.ThemeSettings
 *                  -> INSTANCE_FIELD ThemeSettings.changes -> java.beans.PropertyChangeSupport
 *                  -> INSTANCE_FIELD PropertyChangeSupport.map
 *                     -> java.beans.PropertyChangeSupport$PropertyChangeListenerMap
 *                  -> INSTANCE_FIELD ChangeListenerMap.map -> java.util.HashMap (1 entry, key
 *                     null: "all properties")
 *                  => HashMap$Node.value -> PropertyChangeListener[] (a new array of length n on
 *                     the n-th add; every slot is the same PropertyChangeLeak$Repainter)
 * Growth:        +1 reference per loop, 0 new objects net (the old array becomes garbage); the
 *                array is replaced on every add
 * Growing call:  corpus.app.ThemeSettings.addListener(ThemeSettings.java:16)
 *                  via corpus.leaks.PropertyChangeLeak.run(PropertyChangeLeak.java:58)
 *                (inside the JDK: ChangeListenerMap.add, which stores the new array with
 *                HashMap.put)
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7, 11, 19, 35, 67, 131,
 *                259, 515 listeners, always 1 distinct object; JVM live objects +0 per loop after
 *                loop 7
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: reported,
 *                exit 1: INSTANCE_FIELD ChangeListenerMap.map -> java.util.HashMap (children: 1
 *                object, +48 B per 2 loops: HashMap.[x] -> PropertyChangeListener[]), found by byte
 *                growth; the node is the HashMap, not the array
 * Shark:         not run; by its rule BLIND SPOT: no child gains objects (the array only lengthens)
 */
package corpus.leaks;

import corpus.app.ThemeSettings;
import java.beans.PropertyChangeEvent;
import java.beans.PropertyChangeListener;

public class PropertyChangeLeak implements Runnable {
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
        settings.addListener(repainter); // VIA (ThemeSettings.addListener grows)
        settings.setTheme(loop % 2 == 0 ? "light" : "dark");
    }
}
