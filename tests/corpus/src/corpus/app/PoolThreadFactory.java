package corpus.app;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Names threads like the JDK's {@code Executors.defaultThreadFactory()} does,
 * {@code pool-N-thread-M} (N counts the factories made in this class loader, M the threads of this
 * factory), but makes them daemon threads with a 64 KiB stack, so a scenario that forgets to shut
 * its pool down does not keep the JVM from exiting. The default factory's threads are not daemon.
 */
public final class PoolThreadFactory implements ThreadFactory {
    public static final long STACK_SIZE = 64 * 1024;

    private static final AtomicInteger POOLS = new AtomicInteger(1);

    private final int pool = POOLS.getAndIncrement();
    private final AtomicInteger threads = new AtomicInteger(1);

    @Override
    public Thread newThread(Runnable task) {
        String name = "pool-" + pool + "-thread-" + threads.getAndIncrement();
        Thread thread = new Thread(null, task, name, STACK_SIZE);
        thread.setDaemon(true);
        return thread;
    }
}
