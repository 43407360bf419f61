package corpus.app;

/**
 * A generator's class loader: {@link #define} defines a copy of {@link GeneratedHandler000000}
 * under a new name (the suffix replaced by the serial number, same length). The VM adds every
 * class it defines to the loader's {@code ClassLoader.classes} list, which keeps the class as
 * long as the loader lives.
 */
public final class TemplateLoader extends ClassLoader {
    private static final String TEMPLATE = "GeneratedHandler000000";
    private final byte[] template;

    public TemplateLoader(ClassLoader parent) {
        super("templates", parent);
        template = PluginLoader.readClassBytes(parent, "corpus.app." + TEMPLATE);
    }

    /** Defines {@code corpus.app.GeneratedHandlerNNNNNN} ({@code serial} in six digits). */
    public Class<?> define(int serial) {
        String suffix = String.format("%06d", serial);
        byte[] bytes = template.clone();
        byte[] from = TEMPLATE.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] to = ("GeneratedHandler" + suffix).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        for (int i = 0; i + from.length <= bytes.length; i++) {
            if (java.util.Arrays.equals(bytes, i, i + from.length, from, 0, from.length)) {
                System.arraycopy(to, 0, bytes, i, to.length);
            }
        }
        String name = "corpus.app.GeneratedHandler" + suffix;
        return defineClass(name, bytes, 0, bytes.length); // GROWS
    }
}
