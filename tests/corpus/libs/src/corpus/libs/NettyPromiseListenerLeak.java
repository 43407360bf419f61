/*
 * NettyPromiseListenerLeak: one Netty promise for the application's shutdown, never completed
 * during a run. Every loop opens a request and registers a listener on the shutdown promise (to
 * fail the request if the application stops); the request ends within the loop, but its
 * listener is never removed, so the promise keeps one listener per request.
 *
 * Expected:      LEAK
 * Library:       io.netty:netty-common 4.2.21.Final
 * Growing node:  INSTANCE_FIELD DefaultPromise.listeners -> DefaultFutureListeners
 *                  -> INSTANCE_FIELD DefaultFutureListeners.listeners -> GenericFutureListener[]
 *                  => NettyPromiseListenerLeak$AbortOnShutdown (stored into the array by
 *                  DefaultFutureListeners.add, which writes its size; the array doubles when
 *                  full)
 * Growth:        +1 AbortOnShutdown per loop (2 objects: the listener and its Request)
 * Growing call:  corpus.libs.NettyPromiseListenerLeak.run(NettyPromiseListenerLeak.java:63)
 *                  (DefaultPromise.addListener -> DefaultFutureListeners.add); the listener is
 *                  made at NettyPromiseListenerLeak.java:62
 * Measured:      heapgrowth @ branch keep, default schedule, JSON, 3 runs: exit 1 in 3 of 3;
 *                attributed by the owner-field watch on DefaultFutureListeners.size: "4 call(s)
 *                to addListener()" at :63, made at :62
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

public class NettyPromiseListenerLeak implements Runnable {
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

    public NettyPromiseListenerLeak() {
        // Netty logs through SLF4J, bound to logback here, which logs DEBUG to the console
        // without a configuration file (see the README): logging off before Netty logs.
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext logback) {
            logback.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(Level.OFF);
        }
        shutdown = new DefaultPromise<>(ImmediateEventExecutor.INSTANCE);
    }

    @Override
    public void run() {
        loop++;
        AbortOnShutdown abort = new AbortOnShutdown(new Request("request-" + loop, loop)); // ALLOCATED
        shutdown.addListener(abort); // GROWS
        // Bug: the request ends here, but shutdown.removeListener(abort) is never called.
    }
}
