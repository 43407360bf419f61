/*
 * AsyncExecutorRemoved: the clean twin of leaks.AsyncExecutorLeak. The background task puts the
 * order in the static list while it works on it, then removes it.
 *
 * Expected:      CLEAN (not reported)
 * Watched field: STATIC_FIELD corpus.clean.AsyncExecutorRemoved.inProgress
 *                  -> java.util.Collections$SynchronizedRandomAccessList -> c -> ArrayList:
 *                empty once the executor has run the loop's task; 1 Item while it runs
 * Settled:       NOT by run(), on purpose (see AsyncExecutorLeak): a dump taken before the task
 *                has run or finished may see the Item
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515 (each once the executor was
 *                idle): 0 Items in the list, 0 live Items; JVM live objects +0 per loop after loop
 *                7
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: not
 *                reported (7 loops, 3 snapshots; 12 runs), exit 0
 * Shark:         not reported
 */
package corpus.clean;

import corpus.app.Item;
import corpus.app.PoolThreadFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

public class AsyncExecutorRemoved implements Runnable {
    /** Processes one order. */
    static final class Process implements Runnable {
        private final int order;

        Process(int order) {
            this.order = order;
        }

        @Override
        public void run() {
            Item item = new Item("order-" + order, 100L * order);
            inProgress.add(item);
            totalCents += item.priceCents();
            inProgress.remove(item);
        }
    }

    private static List<Item> inProgress = Collections.synchronizedList(new ArrayList<>());
    private static volatile long totalCents;

    private final ExecutorService background = Executors.newFixedThreadPool(1, new PoolThreadFactory());

    private int loop;

    @Override
    public void run() {
        loop++;
        background.execute(new Process(loop));
    }
}
