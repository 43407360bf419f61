/*
 * EventBusMethodRefUnregisterLeak: a screen registers a method reference on the application's
 * event bus (a CopyOnWriteArrayList of listeners) and unregisters "the same" method reference
 * when it closes. A method reference that captures `this` is a new object each time it is
 * evaluated, and CopyOnWriteArrayList.remove compares with equals (identity for a lambda
 * object), so unregister removes nothing: the bus gains one listener per loop. The list's
 * array is replaced on every add and has no size field: the remove hint reads the array
 * (CopyOnWriteArrayList.remove reads it once through getArray() and writes nothing when it
 * finds nothing).
 *
 * Expected:      LEAK
 * Growing node:  STATIC_FIELD corpus.app.EventBus.INSTANCE -> corpus.app.EventBus
 *                  -> INSTANCE_FIELD EventBus.listeners -> CopyOnWriteArrayList
 *                  => EventBusMethodRefUnregisterLeak$$Lambda (a hidden class)
 * Growth:        +1 listener per loop (the method reference's object, which holds the scenario)
 * Growing call:  corpus.app.EventBus.register(EventBus.java:20)
 *                  via corpus.attribution.EventBusMethodRefUnregisterLeak.run(EventBusMethodRefUnregisterLeak.java:41)
 * Measured:      heapgrowth on branch cls2 (issue 32, debug build), default schedule, JSON, JDK 17,
 *                10 runs: exit 1 in 10 of 10, the node above; attributed in 10 of 10 by the
 *                container watch on CopyOnWriteArrayList.array: "4 call(s) to add()" at
 *                EventBus.java:20, and the hint "4 call(s) to remove() at
 *                corpus.app.EventBus.unregister(EventBus.java:24) removed nothing"
 */
package corpus.attribution;

import corpus.app.EventBus;

public class EventBusMethodRefUnregisterLeak implements Runnable {
    private int events;

    private int loop;

    void onEvent(String topic) {
        events++;
    }

    @Override
    public void run() {
        loop++;
        EventBus bus = EventBus.getInstance();
        bus.register(this::onEvent); // VIA (EventBus.register grows)
        bus.publish("screen-" + loop);
        // Bug: another method reference object, equal to nothing on the bus.
        bus.unregister(this::onEvent);
    }
}
