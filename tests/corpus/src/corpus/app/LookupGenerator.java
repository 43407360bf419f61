package corpus.app;

import java.lang.invoke.MethodHandles;

/**
 * A generator that defines its classes into its own class loader through a
 * {@link MethodHandles.Lookup} (as proxy and bytecode generators do on JDK 9 and later), each a
 * copy of {@link GeneratedHandler000000}: {@link #define} a normal class under a new name (the
 * suffix replaced by the serial number, same length), which the loader keeps as long as it
 * lives; {@link #defineHidden} a hidden class, which is unloaded once nothing uses it.
 */
public final class LookupGenerator {
    private static final String TEMPLATE = "GeneratedHandler000000";
    private static final byte[] TEMPLATE_BYTES =
            PluginLoader.readClassBytes(LookupGenerator.class.getClassLoader(), "corpus.app." + TEMPLATE);

    private LookupGenerator() {}

    /** Defines {@code corpus.app.GeneratedHandlerNNNNNN} ({@code serial} in six digits) in this class's loader. */
    public static Class<?> define(int serial) throws IllegalAccessException {
        byte[] bytes = TEMPLATE_BYTES.clone();
        byte[] from = TEMPLATE.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] to = String.format("GeneratedHandler%06d", serial).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        for (int i = 0; i + from.length <= bytes.length; i++) {
            if (java.util.Arrays.equals(bytes, i, i + from.length, from, 0, from.length)) {
                System.arraycopy(to, 0, bytes, i, to.length);
            }
        }
        return MethodHandles.lookup().defineClass(bytes); // GROWS
    }

    /** Defines a hidden copy of the template ({@code corpus.app.GeneratedHandler000000/0x...}). */
    public static Class<?> defineHidden() throws IllegalAccessException {
        return MethodHandles.lookup().defineHiddenClass(TEMPLATE_BYTES, false).lookupClass();
    }
}
