package corpus.app;

import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * An audit journal, safe to share between threads: the recent events in a queue, beside two
 * indexes of them (length by event, event by id). Its three structures are final fields (no
 * proxy can go into them) of classes that link their entries with CAS (no size field write for a
 * watch to see), so only allocation sampling can attribute their growth.
 */
public final class EventJournal {
    private final Queue<String> recent = new ConcurrentLinkedQueue<>();
    private final Map<String, Integer> lengthByEvent = new ConcurrentHashMap<>();
    private final Map<Integer, String> eventById = new ConcurrentHashMap<>();
    private int nextId;
    private int size;

    /** Files `event` in the queue and in both indexes. */
    public void record(String event) {
        recent.add(event); // GROWS
        lengthByEvent.put(event, event.length()); // GROWS
        eventById.put(nextId++, event); // GROWS
        size++;
    }

    /** Drops the oldest events until at most `kept` are left, from every structure. */
    public void trimTo(int kept) {
        while (size > kept) {
            String oldest = recent.poll();
            lengthByEvent.remove(oldest);
            size--;
        }
        eventById.keySet().removeIf(id -> id < nextId - kept);
    }

    public int size() {
        return size;
    }
}
