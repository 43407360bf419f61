/*
 * ClearAndRefill: a static list that is cleared and refilled with 50 new Items every loop.
 *
 * Expected:      CLEAN (not reported)
 * Watched field: STATIC_FIELD corpus.clean.ClearAndRefill.batch -> java.util.ArrayList
 *                (declared List): always 50 Items after a loop (150 objects with the sku
 *                Strings and their byte[]); its array reaches its final capacity (73) in loop 1
 * Shark:         not reported (same count in every dump, though every object is new)
 */
package corpus.clean;

import corpus.app.Item;
import java.util.ArrayList;
import java.util.List;

public class ClearAndRefill implements Runnable {
    public static final int BATCH_SIZE = 50;

    private static List<Item> batch = new ArrayList<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        batch.clear();
        for (int i = 0; i < BATCH_SIZE; i++) {
            batch.add(new Item("batch-" + loop + "-" + i, i));
        }
    }
}
