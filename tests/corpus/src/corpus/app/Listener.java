package corpus.app;

/** Receives the topics published on the {@link EventBus}. */
public interface Listener {
    void onEvent(String topic);
}
