/*
 * WorkerBatchFlushed: the clean twin of leaks.WorkerBatchLeak. The same batch writer thread
 * collects order lines in a local batch, but writes the batch out and clears it every 8 lines.
 *
 * Expected:      CLEAN (not reported)
 * Watched node:  the java.util.ArrayList in the local `batch` of
 *                corpus.clean.WorkerBatchFlushed$Writer.run (thread "batch-writer"):
 *                loop % 8 Items after a loop (1, 2, ... 7, 0, 1, ...); its elementData keeps
 *                capacity 10 from loop 1. No Item is live after loops 8, 16, ... (the frame's
 *                dead `line` slot is not a root)
 * Bound reached: loop 7 (7 Items, the most it ever holds between loops)
 * Settled:       as in WorkerBatchLeak
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7, 3, 3, 3, 3, 3, 3, 3
 *                live Items (loop % 8); after every loop 1..20: 1, 2, ... 7, 0, 1, ... 7, 0, 1, 2,
 *                3, 4; worker WAITING
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: not
 *                reported (9 loops, 4 snapshots), exit 0
 * Shark:         not reported
 */
package corpus.clean;

import corpus.app.Item;
import corpus.app.Threads;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.SynchronousQueue;

public class WorkerBatchFlushed implements Runnable {
    public static final long STACK_SIZE = 64 * 1024;
    public static final int BATCH_SIZE = 8;

    /** Collects order lines into a batch and writes the batch out when it is full. */
    static final class Writer implements Runnable {
        private final BlockingQueue<Item> inbox;
        private volatile int received;
        private long writtenCents;

        Writer(BlockingQueue<Item> inbox) {
            this.inbox = inbox;
        }

        @Override
        public void run() {
            List<Item> batch = new ArrayList<>();
            try {
                while (true) {
                    Item line = inbox.take();
                    batch.add(line);
                    if (batch.size() >= BATCH_SIZE) {
                        write(batch);
                        batch.clear();
                    }
                    received++;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private void write(List<Item> batch) {
            for (Item line : batch) {
                writtenCents += line.priceCents();
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

    public WorkerBatchFlushed() {
        writerThread = new Thread(null, writer, "batch-writer", STACK_SIZE);
        writerThread.setDaemon(true);
        writerThread.start();
        Threads.awaitWaiting(writerThread);
    }

    @Override
    public void run() {
        loop++;
        Item line = new Item("line-" + loop, loop);
        handOver(line);
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
