/*
 * PoolThreadLocalLeak: requests are handled on a single-thread executor (daemon pool thread from
 * corpus.app.PoolThreadFactory, "pool-1-thread-1"); the handler keeps the orders it has seen in
 * a ThreadLocal<List<Item>> "for this request" and never clears it. The pool thread lives on, so
 * its thread-local list keeps every order. The scenario waits for each task (Future.get) and
 * for the worker to be parked again before run() returns. The path's root is the pool worker
 * thread, not the scenario's thread.
 *
 * Expected:      LEAK
 * Growing node:  GcRoot(ThreadObject "pool-*-thread-*") -> INSTANCE_FIELD Thread.threadLocals
 *                  -> ThreadLocal$ThreadLocalMap -> INSTANCE_FIELD ThreadLocalMap.table
 *                  -> ThreadLocal$ThreadLocalMap$Entry[] -> ARRAY_ENTRY [x]
 *                  -> ThreadLocal$ThreadLocalMap$Entry -> INSTANCE_FIELD Entry.value
 *                  -> java.util.ArrayList => corpus.app.Item
 * Growth:        +1 corpus.app.Item per loop (3 objects)
 * Growing call:  corpus.attribution.PoolThreadLocalLeak.remember(PoolThreadLocalLeak.java:71), on
 *                the pool thread (under FutureTask.run -> ThreadPoolExecutor$Worker.run), not
 *                below the scenario's run(); the task is submitted at
 *                PoolThreadLocalLeak.java:56
 * Settled:       Future.get() returns once the task has run; run() then yields until the worker
 *                is WAITING again (parked in LinkedBlockingQueue.take), no clock
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 1 in 3 of 3; node GcRoot(ThreadObject "pool-*-thread-*") ->
 *                INSTANCE_FIELD Thread.threadLocals -> ThreadLocalMap -> ARRAY_ENTRY
 *                ThreadLocalMap.[x] -> ArrayList, children at loops 3, 7, 15, 31, 124, 496, 1000:
 *                3, 7, 15, 31, 124, 496, 1000 Items. Attribution (all 3): attributed, calls to
 *                add(), 1 stack (4 calls), first frame
 *                PoolThreadLocalLeak.remember(PoolThreadLocalLeak.java:71) = the GROWS line, then
 *                lambda$run$0 (PoolThreadLocalLeak.java:56), the lambda,
 *                Executors$RunnableAdapter.call, FutureTask.run, ... Thread.run (8 frames)
 */
package corpus.attribution;

import corpus.app.Item;
import corpus.app.PoolThreadFactory;
import corpus.app.Threads;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

public class PoolThreadLocalLeak implements Runnable {
    private static final ThreadLocal<List<Item>> SEEN = ThreadLocal.withInitial(ArrayList::new);

    private final ExecutorService pool = Executors.newSingleThreadExecutor(new PoolThreadFactory());
    private volatile Thread worker;

    private int loop;

    @Override
    public void run() {
        loop++;
        int order = loop;
        Future<?> done = pool.submit(() -> remember(order)); // VIA (hand-off: remember grows, on the pool thread)
        try {
            done.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("task failed", e.getCause());
        }
        Threads.awaitWaiting(worker);
    }

    private void remember(int order) {
        worker = Thread.currentThread();
        List<Item> seen = SEEN.get();
        seen.add(new Item("order-" + order, 100L * order)); // GROWS
        // Bug: SEEN.remove() is never called when the request ends.
    }
}
