/*
 * LoopKeyMapLeak: the leak twin of clean.ModuloKeyMap: the same "latest reading" map, but keyed by
 * the loop number instead of the sensor number (loop % 200), so every put adds a key.
 *
 * Expected:      LEAK
 * Growing field: STATIC_FIELD corpus.leaks.LoopKeyMapLeak.latest -> java.util.HashMap
 *                (declared Map, not final) => HashMap$Node (key Integer, value corpus.app.Item)
 * Growth:        +1 entry per loop (5 objects from loop 128 on: HashMap$Node, Integer,
 *                Item + sku String + byte[]; 4 in loops 1..127, whose keys come from Integer's
 *                cache);
 *                the table is replaced at 13, 25, 49, 97, 193, 385 entries
 * Growing call:  corpus.leaks.LoopKeyMapLeak.run(LoopKeyMapLeak.java:35)
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7, 11, 19, 35, 67, 131,
 *                259, 515 entries; table 16, 16, 16, 16, 32, 64, 128, 256, 512, 1024 slots; JVM
 *                live objects +4.00 per loop up to loop 131, +5.00 after
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: reported,
 *                exit 1: STATIC_FIELD LoopKeyMapLeak.latest -> HashMap, children [x] Item 3, 5, 7,
 *                9, 11, 17, 23
 * Shark:         not run; by its rule reported
 */
package corpus.leaks;

import corpus.app.Item;
import java.util.HashMap;
import java.util.Map;

public class LoopKeyMapLeak implements Runnable {
    private static Map<Integer, Item> latest = new HashMap<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        latest.put(loop, new Item("reading-" + loop, loop)); // GROWS
    }
}
