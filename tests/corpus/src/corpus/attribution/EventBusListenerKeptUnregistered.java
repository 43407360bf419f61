/*
 * EventBusListenerKeptUnregistered: clean twin of EventBusMethodRefUnregisterLeak. The same
 * screen registers on the event bus and unregisters when it closes, but the method reference
 * is made once, kept in a final field, and that object is passed to both calls: the bus holds
 * no listener of the screen's between loops.
 *
 * Expected:      CLEAN
 * Growing node:  none
 * Growth:        0
 * Measured:      heapgrowth on branch cls2 (debug build), default schedule, JSON, JDK 17, 10 runs:
 *                exit 0 in 10 of 10, nothing reported
 */
package corpus.attribution;

import corpus.app.EventBus;
import corpus.app.Listener;

public class EventBusListenerKeptUnregistered implements Runnable {
    /** The one listener object: what unregister is given is what register was. */
    private final Listener listener = this::onEvent;

    private int events;

    private int loop;

    void onEvent(String topic) {
        events++;
    }

    @Override
    public void run() {
        loop++;
        EventBus bus = EventBus.getInstance();
        bus.register(listener);
        bus.publish("screen-" + loop);
        bus.unregister(listener);
    }
}
