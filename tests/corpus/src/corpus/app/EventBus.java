package corpus.app;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** An application-wide event bus (a singleton held in a static field). */
public final class EventBus {
    private static final EventBus INSTANCE = new EventBus();

    private List<Listener> listeners = new CopyOnWriteArrayList<>();

    private EventBus() {
    }

    public static EventBus getInstance() {
        return INSTANCE;
    }

    public void register(Listener listener) {
        listeners.add(listener); // GROWS
    }

    public void unregister(Listener listener) {
        listeners.remove(listener);
    }

    public void publish(String topic) {
        for (Listener listener : listeners) {
            listener.onEvent(topic);
        }
    }

    public int listenerCount() {
        return listeners.size();
    }
}
