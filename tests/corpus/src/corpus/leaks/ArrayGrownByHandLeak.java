/*
 * ArrayGrownByHandLeak: a static Object[] plus a size counter, grown by hand by exactly one slot
 * whenever it is full, which is every loop: the array is replaced by a copy one longer on every
 * loop, then the new slot is filled.
 *
 * Expected:      LEAK
 * Growing field: STATIC_FIELD corpus.leaks.ArrayGrownByHandLeak.items -> java.lang.Object[]
 *                (a new array object each loop; same path, one more element)
 * Growth:        +1 corpus.app.Item per loop in the array (3 objects per loop with the sku
 *                String and its byte[]); the array is one slot longer per loop (4 bytes with
 *                compressed oops; its size in the heap rises by 8 bytes every second loop)
 * Growing call:  corpus.leaks.ArrayGrownByHandLeak.run(ArrayGrownByHandLeak.java:34) (the array
 *                store) after the copy at ArrayGrownByHandLeak.java:32 (a static field write);
 *                no collection to proxy
 * Shark:         reported
 */
package corpus.leaks;

import corpus.app.Item;
import java.util.Arrays;

public class ArrayGrownByHandLeak implements Runnable {
    private static Object[] items = new Object[0];
    private static int size;

    private int loop;

    @Override
    public void run() {
        loop++;
        if (size == items.length) {
            items = Arrays.copyOf(items, size + 1); // GROWS (replaces the array)
        }
        items[size++] = new Item("row-" + loop, loop); // GROWS
    }
}
