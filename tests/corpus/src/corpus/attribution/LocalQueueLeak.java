/*
 * LocalQueueLeak: a dispatcher thread, started once in the constructor, takes jobs from a
 * SynchronousQueue and queues them in a local ArrayDeque to be dispatched in order; the
 * dispatch step (polling the deque) was never written, so the deque only grows. The deque is a
 * local variable of the dispatcher's run(): no field anywhere points to it. (Like
 * corpus.leaks.WorkerBatchLeak, but an ArrayDeque, whose internals are head/tail indexes into
 * an Object[] that is replaced when it fills.)
 *
 * Expected:      LEAK
 * Growing node:  the java.util.ArrayDeque in the local variable `pending` of
 *                corpus.attribution.LocalQueueLeak$Dispatcher.run, a JavaFrame root of the
 *                thread "job-dispatcher" (daemon, 64 KiB stack, parked in SynchronousQueue.take
 *                between loops): GcRoot(ThreadObject "job-dispatcher") -> LOCAL -> ArrayDeque
 *                => corpus.app.Item
 * Growth:        +1 corpus.app.Item per loop (3 objects: Item, sku String, byte[])
 * Growing call:  corpus.attribution.LocalQueueLeak$Dispatcher.run(LocalQueueLeak.java:57), on the
 *                dispatcher thread; the scenario hands the job over at LocalQueueLeak.java:87
 *                (SynchronousQueue.put)
 * Settled:       put() returns once the dispatcher has taken the job; run() then yields until
 *                the dispatcher has counted it (a volatile counter, written after the add) and is
 *                WAITING again, no clock. The constructor waits the same way for the first take.
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 1 in 3 of 3; node GcRoot(ThreadObject "job-dispatcher") -> LOCAL
 *                LocalQueueLeak$Dispatcher.run (source LocalQueueLeak.java:56) -> ArrayDeque,
 *                children at loops 3, 7, 15, 31, 124, 496, 1000: 3, 7, 15, 31, 124, 496, 1000
 *                Items. Attribution (all 3): not_attributed, "the node is held by a local variable
 *                of a running method (LOCAL corpus.attribution.LocalQueueLeak$Dispatcher);
 *                heapgrowth watches fields and containers, not stack frames"
 */
package corpus.attribution;

import corpus.app.Item;
import corpus.app.Threads;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.SynchronousQueue;

public class LocalQueueLeak implements Runnable {
    public static final long STACK_SIZE = 64 * 1024;

    /** Queues jobs for in-order dispatch. Bug: nothing ever polls the deque. */
    static final class Dispatcher implements Runnable {
        private final BlockingQueue<Item> inbox;
        private volatile int received;

        Dispatcher(BlockingQueue<Item> inbox) {
            this.inbox = inbox;
        }

        @Override
        public void run() {
            Deque<Item> pending = new ArrayDeque<>();
            try {
                while (true) {
                    Item job = inbox.take();
                    pending.addLast(job); // GROWS
                    received++;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        int received() {
            return received;
        }
    }

    private final BlockingQueue<Item> inbox = new SynchronousQueue<>();
    private final Dispatcher dispatcher = new Dispatcher(inbox);
    private final Thread dispatcherThread;

    private int loop;

    public LocalQueueLeak() {
        dispatcherThread = new Thread(null, dispatcher, "job-dispatcher", STACK_SIZE);
        dispatcherThread.setDaemon(true);
        dispatcherThread.start();
        Threads.awaitWaiting(dispatcherThread);
    }

    @Override
    public void run() {
        loop++;
        Item job = new Item("job-" + loop, loop);
        handOver(job); // VIA (hand-off: Dispatcher.run grows, on the dispatcher thread)
        while (dispatcher.received() < loop) {
            Thread.yield();
        }
        Threads.awaitWaiting(dispatcherThread);
    }

    private void handOver(Item job) {
        try {
            inbox.put(job);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
