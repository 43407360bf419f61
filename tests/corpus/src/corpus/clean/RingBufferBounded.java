/*
 * RingBufferBounded: the last 200 events, in an ArrayDeque used as a ring buffer: every loop
 * appends one event and, once the buffer holds more than 200, drops the oldest. It fills for 200
 * loops, then levels off.
 *
 * Expected:      CLEAN (not reported), but only if the tool checks for a plateau after loop 200
 * Watched field: STATIC_FIELD corpus.clean.RingBufferBounded.recent -> java.util.ArrayDeque
 *                (declared Deque) => corpus.app.Item: +1 per loop (3 objects: Item, sku String,
 *                byte[]) for loops 1..200, then 200 forever; ArrayDeque.elements grows to 36, 74,
 *                111, 166, 249 slots (the last at loop 166) and then only head and tail move
 * Bound reached: loop 200
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7, 11, 19, 35, 67, 131,
 *                200, 200 events; elements 17, 17, 17, 17, 36, 36, 74, 166, 249, 249 slots; checked
 *                after every loop: 200 first after loop 200
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: FALSE
 *                POSITIVE, exit 1: STATIC_FIELD RingBufferBounded.recent -> ArrayDeque, children 3,
 *                5, 7, 9, 11, 17, 23 Items (23 loops: the bound is reached at 200)
 * Shark:         FALSE POSITIVE with the default schedule (+2 in every dump for 200 loops)
 */
package corpus.clean;

import corpus.app.Item;
import java.util.ArrayDeque;
import java.util.Deque;

public class RingBufferBounded implements Runnable {
    public static final int CAPACITY = 200;

    private static Deque<Item> recent = new ArrayDeque<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        recent.addLast(new Item("event-" + loop, loop));
        if (recent.size() > CAPACITY) {
            recent.pollFirst();
        }
    }
}
