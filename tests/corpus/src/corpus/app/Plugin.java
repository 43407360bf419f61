package corpus.app;

/** What a deployed plugin offers its host. Loaded by the host's class loader, never a plugin's. */
public interface Plugin {
    void start(String deployment);

    void stop();

    String greeting();
}
