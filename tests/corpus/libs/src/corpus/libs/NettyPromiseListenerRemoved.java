/*
 * NettyPromiseListenerRemoved: clean twin of NettyPromiseListenerLeak. The same shutdown
 * promise and per-request listener; when the request ends, its listener is removed (the same
 * object), so the promise holds no listener between loops (DefaultFutureListeners keeps its
 * array, emptied).
 *
 * Expected:      CLEAN
 * Library:       io.netty:netty-common 4.2.21.Final
 * Growing node:  none
 * Growth:        0
 * Measured:      heapgrowth @ branch keep, default schedule, 3 runs: exit 0 in 3 of 3, nothing
 *                reported
 */
package corpus.libs;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import io.netty.util.concurrent.DefaultPromise;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GenericFutureListener;
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.netty.util.concurrent.Promise;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

public class NettyPromiseListenerRemoved implements Runnable {
    /** One client request. */
    record Request(String id, int loop) {}

    /** Fails its request when the application shuts down. */
    record AbortOnShutdown(Request request) implements GenericFutureListener<Future<Void>> {
        @Override
        public void operationComplete(Future<Void> future) {
            request.id();
        }
    }

    private final Promise<Void> shutdown;

    private int loop;

    public NettyPromiseListenerRemoved() {
        // Logging off before Netty logs (see NettyPromiseListenerLeak).
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext logback) {
            logback.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(Level.OFF);
        }
        shutdown = new DefaultPromise<>(ImmediateEventExecutor.INSTANCE);
    }

    @Override
    public void run() {
        loop++;
        AbortOnShutdown abort = new AbortOnShutdown(new Request("request-" + loop, loop));
        shutdown.addListener(abort);
        // The request ends: its listener goes with it.
        shutdown.removeListener(abort);
    }
}
