package corpus.app;

/**
 * The plugin that the class-loader scenarios deploy. It is never loaded by the scenario's own
 * class loader: {@link PluginLoader} defines a fresh copy of it (same name, same bytes, a new
 * {@code Class} object with its own statics) in every loader it is asked to deploy into.
 */
public final class GreetingPlugin implements Plugin {
    /** Per-class state: every deployed copy of this class has its own array. */
    private static int[] startsByLength = new int[16];

    private String greeting;

    public GreetingPlugin() {
    }

    @Override
    public void start(String deployment) {
        greeting = "hello from " + deployment;
        startsByLength[deployment.length() % startsByLength.length]++;
    }

    @Override
    public void stop() {
        greeting = null;
    }

    @Override
    public String greeting() {
        return greeting;
    }
}
