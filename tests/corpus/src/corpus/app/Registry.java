package corpus.app;

import java.util.ArrayList;
import java.util.List;

/** A named registry of entries; entries are registered and never removed. */
public class Registry {
    /** One registered key. */
    public static final class Entry {
        private final String registry;
        private final String key;

        Entry(String registry, String key) {
            this.registry = registry;
            this.key = key;
        }

        public String registry() {
            return registry;
        }

        public String key() {
            return key;
        }
    }

    private final String name;
    private List<Entry> entries = new ArrayList<>();

    public Registry(String name) {
        this.name = name;
    }

    public void register(String key) {
        entries.add(new Entry(name, key)); // GROWS
    }

    public String name() {
        return name;
    }

    public int size() {
        return entries.size();
    }
}
