package corpus.app;

import java.beans.PropertyChangeListener;
import java.beans.PropertyChangeSupport;

/**
 * A JavaBean with one bound property, {@code theme}. Listeners are kept by the JDK's
 * {@link PropertyChangeSupport}, which keeps duplicates: a listener added twice is called twice
 * and must be removed twice.
 */
public class ThemeSettings {
    private final PropertyChangeSupport changes = new PropertyChangeSupport(this);
    private String theme = "light";

    public void addListener(PropertyChangeListener listener) {
        changes.addPropertyChangeListener(listener); // GROWS
    }

    public void removeListener(PropertyChangeListener listener) {
        changes.removePropertyChangeListener(listener);
    }

    public void setTheme(String newTheme) {
        String old = theme;
        theme = newTheme;
        changes.firePropertyChange("theme", old, newTheme);
    }

    public String theme() {
        return theme;
    }

    public int listenerCount() {
        return changes.getPropertyChangeListeners().length;
    }
}
