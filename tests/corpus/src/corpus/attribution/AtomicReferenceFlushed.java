/*
 * AtomicReferenceFlushed: clean twin of AtomicReferenceLeak. The same static AtomicReference
 * holding the batch of recent orders, but every loop flushes it: getAndSet swaps in a new empty
 * list and the old batch is processed and dropped.
 *
 * Expected:      CLEAN
 * Growing node:  none: STATIC_FIELD corpus.attribution.AtomicReferenceFlushed.recent
 *                  -> AtomicReference -> INSTANCE_FIELD AtomicReference.value -> ArrayList,
 *                empty between loops (a new list every loop)
 * Growth:        0 (1 Item per loop, garbage after the flush)
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 0 in 3 of 3, nothing reported, nothing leveled off (31 loops, 4
 *                snapshots)
 */
package corpus.attribution;

import corpus.app.Item;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

public class AtomicReferenceFlushed implements Runnable {
    private static AtomicReference<List<Item>> recent = new AtomicReference<>(new ArrayList<>());

    private int loop;
    private long flushedCents;

    @Override
    public void run() {
        loop++;
        List<Item> batch = recent.get();
        batch.add(new Item("recent-" + loop, loop));
        for (Item item : recent.getAndSet(new ArrayList<>())) {
            flushedCents += item.priceCents();
        }
    }
}
