package corpus.app;

import java.util.ArrayList;
import java.util.List;

/**
 * Publishes price ticks to its subscribers. {@link #subscribe} keeps every subscription it is
 * given, duplicates included (a listener subscribed twice hears every tick twice).
 */
public class PriceFeed {
    private List<Listener> subscribers = new ArrayList<>();

    public void subscribe(Listener listener) {
        subscribers.add(listener); // GROWS
    }

    /** Removes one subscription of {@code listener} (the first, if it is there more than once). */
    public void unsubscribe(Listener listener) {
        subscribers.remove(listener);
    }

    public void publish(String tick) {
        for (Listener subscriber : subscribers) {
            subscriber.onEvent(tick);
        }
    }

    public int subscriberCount() {
        return subscribers.size();
    }
}
