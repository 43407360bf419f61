/*
 * AtomicReferenceLeak: the "recent orders" batch is kept in a static AtomicReference so that a
 * flusher could swap it out atomically (getAndSet); the flush was never written, so the one list
 * in the reference only grows. The path to the list goes through a field of a JDK package that
 * is not opened to the unnamed module (java.util.concurrent.atomic).
 *
 * Expected:      LEAK
 * Growing node:  STATIC_FIELD corpus.attribution.AtomicReferenceLeak.recent
 *                  -> java.util.concurrent.atomic.AtomicReference
 *                  -> INSTANCE_FIELD AtomicReference.value -> java.util.ArrayList => corpus.app.Item
 * Growth:        +1 corpus.app.Item per loop (3 objects: Item, sku String, byte[])
 * Growing call:  corpus.attribution.AtomicReferenceLeak.run(AtomicReferenceLeak.java:38)
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 1 in 3 of 3; node INSTANCE_FIELD AtomicReference.value -> ArrayList,
 *                children at loops 3, 7, 15, 31, 124, 496, 1000: 3, 7, 15, 31, 124, 496, 1000
 *                Items. Attribution (all 3): not_attributed, "cannot follow the path in the running
 *                JVM: java.lang.reflect.InaccessibleObjectException: Unable to make field private
 *                volatile java.lang.Object java.util.concurrent.atomic.AtomicReference.value
 *                accessible: module java.base does not "opens java.util.concurrent.atomic" to
 *                unnamed module @..."
 */
package corpus.attribution;

import corpus.app.Item;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

public class AtomicReferenceLeak implements Runnable {
    private static AtomicReference<List<Item>> recent = new AtomicReference<>(new ArrayList<>());

    private int loop;

    @Override
    public void run() {
        loop++;
        List<Item> batch = recent.get();
        batch.add(new Item("recent-" + loop, loop)); // GROWS
        // Bug: the flush, recent.getAndSet(new ArrayList<>()), is never called.
    }
}
