/*
 * ModuloKeyMap: the latest reading of each of 200 sensors, in a HashMap keyed by sensor number
 * (loop % 200). For 200 loops every loop adds a key; after that every put replaces a value.
 *
 * Expected:      CLEAN (not reported), but only if the tool checks for a plateau after loop 200
 * Watched field: STATIC_FIELD corpus.clean.ModuloKeyMap.latest -> java.util.HashMap
 *                (declared Map) => HashMap$Node (key Integer, value corpus.app.Item):
 *                +1 entry per loop for loops 1..200 (keys 1..199, then 0 at loop 200), then 200
 *                forever, each put replacing the value (the old Item becomes garbage). Keys up to
 *                127 come from Integer's cache, keys 128..199 are Integers made by the first put
 *                of that key. The table is replaced at 13, 25, 49, 97, 193 entries (the last at
 *                loop 193) and then stays at 512 slots
 * Bound reached: loop 200
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7, 11, 19, 35, 67, 131,
 *                200, 200 entries; table 16, 16, 16, 16, 32, 64, 128, 256, 512, 512 slots; checked
 *                after every loop: 200 first after loop 200
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: FALSE
 *                POSITIVE, exit 1: STATIC_FIELD ModuloKeyMap.latest -> HashMap, children [x] Item
 *                3, 5, 7, 9, 11, 17, 23 (23 loops: the bound is reached at 200)
 * Shark:         FALSE POSITIVE with the default schedule (+2 in every dump for 200 loops)
 */
package corpus.clean;

import corpus.app.Item;
import java.util.HashMap;
import java.util.Map;

public class ModuloKeyMap implements Runnable {
    public static final int SENSORS = 200;

    private static Map<Integer, Item> latest = new HashMap<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        latest.put(loop % SENSORS, new Item("reading-" + loop, loop));
    }
}
