/*
 * WorkerBatchLeak: a batch writer thread, started once in the constructor, takes order lines from
 * a SynchronousQueue and collects them in a batch that is meant to be written out when it is
 * full; the flush was never written, so the batch only grows. The batch is a local variable of
 * the worker's run(): no field anywhere points to it.
 *
 * Expected:      LEAK
 * Growing node:  the java.util.ArrayList in the local variable `batch` of
 *                corpus.leaks.WorkerBatchLeak$Writer.run, a JavaFrame root of the thread
 *                "batch-writer" (daemon, 64 KiB stack, parked in SynchronousQueue.take between
 *                loops) => corpus.app.Item. (The frame's `line` slot, dead while the worker
 *                waits, is not a root: the clean twin has 0 Items live after loops 8, 16, ...)
 * Growth:        +1 corpus.app.Item per loop (3 objects: Item, sku String, byte[]); the list's
 *                elementData is replaced when it fills (10, 15, 22, 33, ...)
 * Growing call:  corpus.leaks.WorkerBatchLeak$Writer.run(WorkerBatchLeak.java:57), on the
 *                worker thread: not below run() on the scenario's stack; the scenario hands the
 *                item over at WorkerBatchLeak.java:87 (SynchronousQueue.put)
 * Settled:       put() returns once the worker has taken the item; run() then yields until the
 *                worker has counted it (a volatile counter, written after the add) and is
 *                WAITING again (parked in take), no clock. The constructor waits the same way for
 *                the first take.
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7, 11, 19, 35, 67, 131,
 *                259, 515 live Items (all in the batch), worker WAITING; JVM live objects +3.0 per
 *                loop
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: reported,
 *                exit 1: GcRoot(ThreadObject) -> LOCAL Thread. -> ArrayList (the frame's method is
 *                not named), children [x] Item 3, 5, 7, 9, 11, 17, 23
 * Shark:         not run
 */
package corpus.leaks;

import corpus.app.Item;
import corpus.app.Threads;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.SynchronousQueue;

public class WorkerBatchLeak implements Runnable {
    public static final long STACK_SIZE = 64 * 1024;

    /** Collects order lines into a batch. Bug: the batch is never written out and cleared. */
    static final class Writer implements Runnable {
        private final BlockingQueue<Item> inbox;
        private volatile int received;

        Writer(BlockingQueue<Item> inbox) {
            this.inbox = inbox;
        }

        @Override
        public void run() {
            List<Item> batch = new ArrayList<>();
            try {
                while (true) {
                    Item line = inbox.take();
                    batch.add(line); // GROWS
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
    private final Writer writer = new Writer(inbox);
    private final Thread writerThread;

    private int loop;

    public WorkerBatchLeak() {
        writerThread = new Thread(null, writer, "batch-writer", STACK_SIZE);
        writerThread.setDaemon(true);
        writerThread.start();
        Threads.awaitWaiting(writerThread);
    }

    @Override
    public void run() {
        loop++;
        Item line = new Item("line-" + loop, loop);
        handOver(line); // VIA (hand-off: Writer.run grows, on the worker thread)
        while (writer.received() < loop) {
            Thread.yield();
        }
        Threads.awaitWaiting(writerThread);
    }

    private void handOver(Item line) {
        try {
            inbox.put(line);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
