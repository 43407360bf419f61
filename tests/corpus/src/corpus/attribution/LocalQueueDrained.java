/*
 * LocalQueueDrained: clean twin of LocalQueueLeak. The same dispatcher thread and local
 * ArrayDeque, but after queueing a job it dispatches everything pending, so the deque is empty
 * between loops.
 *
 * Expected:      CLEAN
 * Growing node:  none: the local ArrayDeque `pending` of LocalQueueDrained$Dispatcher.run on
 *                "job-dispatcher" is empty between loops
 * Growth:        0
 * Settled:       as LocalQueueLeak
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 0 in 3 of 3, nothing reported, nothing leveled off (31 loops, 4
 *                snapshots)
 */
package corpus.attribution;

import corpus.app.Item;
import corpus.app.Threads;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.SynchronousQueue;

public class LocalQueueDrained implements Runnable {
    public static final long STACK_SIZE = 64 * 1024;

    /** Queues jobs for in-order dispatch and dispatches them. */
    static final class Dispatcher implements Runnable {
        private final BlockingQueue<Item> inbox;
        private volatile int received;
        private long dispatchedCents;

        Dispatcher(BlockingQueue<Item> inbox) {
            this.inbox = inbox;
        }

        @Override
        public void run() {
            Deque<Item> pending = new ArrayDeque<>();
            try {
                while (true) {
                    Item job = inbox.take();
                    pending.addLast(job);
                    dispatch(pending);
                    received++;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private void dispatch(Deque<Item> pending) {
            Item job;
            while ((job = pending.pollFirst()) != null) {
                dispatchedCents += job.priceCents();
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

    public LocalQueueDrained() {
        dispatcherThread = new Thread(null, dispatcher, "job-dispatcher", STACK_SIZE);
        dispatcherThread.setDaemon(true);
        dispatcherThread.start();
        Threads.awaitWaiting(dispatcherThread);
    }

    @Override
    public void run() {
        loop++;
        Item job = new Item("job-" + loop, loop);
        handOver(job);
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
