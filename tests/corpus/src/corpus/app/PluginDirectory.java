package corpus.app;

/**
 * A long-lived, parallel-capable class loader that plugins are looked up in by name: it defines
 * none itself (its {@code findClass} is {@code ClassLoader}'s, which always throws) and
 * delegates to its parent first. Being parallel capable, every {@code loadClass(name)} takes
 * {@code getClassLoadingLock(name)}, which puts a new lock object for the name into
 * {@code ClassLoader.parallelLockMap}; nothing ever removes it, whether the class was found or
 * not.
 */
public final class PluginDirectory extends ClassLoader {
    static {
        registerAsParallelCapable();
    }

    public PluginDirectory(ClassLoader parent) {
        super("plugins", parent);
    }
}
