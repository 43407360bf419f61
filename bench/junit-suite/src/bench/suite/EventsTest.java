package bench.suite;

import dev.heapgrowth.junit.HeapGrowthTest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/** An event bus: four clean tests and one whose subscribers are never unsubscribed. */
class EventsTest {
    interface Subscriber {
        void on(String topic, Object event);
    }

    static final class Bus {
        private final Map<String, List<Subscriber>> byTopic = new HashMap<>();

        void subscribe(String topic, Subscriber subscriber) {
            byTopic.computeIfAbsent(topic, t -> new CopyOnWriteArrayList<>()).add(subscriber);
        }

        void unsubscribe(String topic, Subscriber subscriber) {
            List<Subscriber> subscribers = byTopic.get(topic);
            if (subscribers != null) {
                subscribers.remove(subscriber);
            }
        }

        int publish(String topic, Object event) {
            List<Subscriber> subscribers = byTopic.getOrDefault(topic, List.of());
            for (Subscriber subscriber : subscribers) {
                subscriber.on(topic, event);
            }
            return subscribers.size();
        }
    }

    /** A screen that subscribes when opened. */
    final class Screen {
        final List<Object> seen = new ArrayList<>();

        void open() {
            BUS.subscribe("orders", (topic, event) -> seen.add(event)); // GROWS
        }
    }

    private static final Bus BUS = new Bus();
    private final Bus bus = new Bus();
    private int loop;

    @HeapGrowthTest
    void subscribesAndUnsubscribes() {
        long started = System.nanoTime();
        Subscriber subscriber = (topic, event) -> { };
        bus.subscribe("prices", subscriber);
        bus.publish("prices", loop++);
        bus.unsubscribe("prices", subscriber);
        Loops.done(started);
    }

    @HeapGrowthTest
    void publishesWithoutSubscribers() {
        long started = System.nanoTime();
        if (bus.publish("nobody", "event") != 0) {
            throw new AssertionError();
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void screenSubscribesOnEveryOpen() {
        long started = System.nanoTime();
        new Screen().open();
        BUS.publish("orders", loop++);
        Loops.done(started);
    }

    @HeapGrowthTest
    void publishesToALocalBus() {
        long started = System.nanoTime();
        Bus local = new Bus();
        List<Object> received = new ArrayList<>();
        local.subscribe("t", (topic, event) -> received.add(event));
        local.publish("t", "one");
        local.publish("t", "two");
        if (received.size() != 2) {
            throw new AssertionError(received);
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void replacesTheLastEvent() {
        long started = System.nanoTime();
        Object[] last = new Object[1];
        Subscriber subscriber = (topic, event) -> last[0] = event;
        bus.subscribe("last", subscriber);
        bus.publish("last", loop++);
        bus.unsubscribe("last", subscriber);
        Loops.done(started);
    }
}
