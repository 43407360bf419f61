/*
 * RingBufferLeak: the leak twin of clean.RingBufferBounded: the same "last events" deque, but the
 * line that drops the oldest event is missing, so it never stops growing.
 *
 * Expected:      LEAK
 * Growing field: STATIC_FIELD corpus.leaks.RingBufferLeak.recent -> java.util.ArrayDeque
 *                (declared Deque, not final) => corpus.app.Item
 * Growth:        +1 Item per loop (3 objects: Item, sku String, byte[]); ArrayDeque.elements is
 *                replaced when it fills (17, 36, 74, 111, 166, 249, 373, 559 slots)
 * Growing call:  corpus.leaks.RingBufferLeak.run(RingBufferLeak.java:33)
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7, 11, 19, 35, 67, 131,
 *                259, 515 events; elements 17, 17, 17, 17, 36, 36, 74, 166, 373, 559 slots; JVM
 *                live objects +3.00 per loop
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: reported,
 *                exit 1: STATIC_FIELD RingBufferLeak.recent -> ArrayDeque, children 3, 5, 7, 9, 11,
 *                17, 23 Items
 * Shark:         not run; by its rule reported
 */
package corpus.leaks;

import corpus.app.Item;
import java.util.ArrayDeque;
import java.util.Deque;

public class RingBufferLeak implements Runnable {
    private static Deque<Item> recent = new ArrayDeque<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        recent.addLast(new Item("event-" + loop, loop)); // GROWS
    }
}
