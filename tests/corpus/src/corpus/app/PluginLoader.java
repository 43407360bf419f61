package corpus.app;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * A class loader for one deployment of a plugin, as an application server makes one per
 * redeploy: it defines the plugin class itself, from bytes the host read once (child first for
 * that one name), and delegates every other name (such as {@link Plugin}) to its parent.
 */
public final class PluginLoader extends ClassLoader {
    private final String pluginClassName;
    private final byte[] classBytes;

    public PluginLoader(String name, ClassLoader parent, String pluginClassName, byte[] classBytes) {
        super(name, parent);
        this.pluginClassName = pluginClassName;
        this.classBytes = classBytes;
    }

    /** Reads a class file through {@code loader}'s resources (the host's class path). */
    public static byte[] readClassBytes(ClassLoader loader, String className) {
        String resource = className.replace('.', '/') + ".class";
        try (InputStream in = loader.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no class file " + resource);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (!name.equals(pluginClassName)) {
            return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> loaded = findLoadedClass(name);
            if (loaded == null) {
                loaded = defineClass(name, classBytes, 0, classBytes.length);
            }
            if (resolve) {
                resolveClass(loaded);
            }
            return loaded;
        }
    }

    /** Defines the plugin class in this loader (first call) and makes an instance of it. */
    public Plugin newPlugin() {
        try {
            return (Plugin) loadClass(pluginClassName).getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot deploy " + pluginClassName, e);
        }
    }
}
