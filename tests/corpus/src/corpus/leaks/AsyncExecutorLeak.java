/*
 * AsyncExecutorLeak: the scenario hands every order to its own background executor (one thread,
 * made in the constructor) and returns at once; the background task records the processed order
 * in a static list that is never trimmed.
 *
 * Expected:      LEAK
 * Growing field: STATIC_FIELD corpus.leaks.AsyncExecutorLeak.processed
 *                  -> java.util.Collections$SynchronizedRandomAccessList (declared List, not
 *                  final) -> INSTANCE_FIELD Collections$SynchronizedCollection.c
 *                  -> java.util.ArrayList => corpus.app.Item
 * Growth:        +1 corpus.app.Item per loop (3 objects: Item, sku String, byte[]), added on the
 *                executor's thread pool-1-thread-1 (corpus.app.PoolThreadFactory: daemon, 64 KiB
 *                stack), some time after run() returned
 * Growing call:  corpus.leaks.AsyncExecutorLeak$Record.run(AsyncExecutorLeak.java:51), on the
 *                executor thread (below it: ThreadPoolExecutor.runWorker); the scenario submits it
 *                at AsyncExecutorLeak.java:64
 * Settled:       NOT by run(), on purpose: run() does not wait for the task. Before a dump, a
 *                tool must wait until the executor has run it (its queue is empty and its thread
 *                is WAITING in LinkedBlockingQueue.take). A dump taken at once may miss the last
 *                loop's Item (or, for a tool that counts per dump, see +1 or +3 instead of +2)
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515 (each once the executor was
 *                idle): 3, 5, 7, 11, 19, 35, 67, 131, 259, 515 Items; JVM live objects +3.0 per
 *                loop
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: reported,
 *                exit 1 (in all 12 runs): STATIC_FIELD AsyncExecutorLeak.processed ->
 *                Collections$SynchronizedRandomAccessList -> Collections$SynchronizedList.list ->
 *                ArrayList, children [x] Item 3, 5, 7, 9, 11, 17, 23
 * Shark:         not run
 */
package corpus.leaks;

import corpus.app.Item;
import corpus.app.PoolThreadFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

public class AsyncExecutorLeak implements Runnable {
    /** Records one processed order. */
    static final class Record implements Runnable {
        private final int order;

        Record(int order) {
            this.order = order;
        }

        @Override
        public void run() {
            processed.add(new Item("order-" + order, 100L * order)); // GROWS
        }
    }

    private static List<Item> processed = Collections.synchronizedList(new ArrayList<>());

    private final ExecutorService background = Executors.newFixedThreadPool(1, new PoolThreadFactory());

    private int loop;

    @Override
    public void run() {
        loop++;
        background.execute(new Record(loop)); // VIA (async: Record.run grows, on the executor thread)
    }
}
