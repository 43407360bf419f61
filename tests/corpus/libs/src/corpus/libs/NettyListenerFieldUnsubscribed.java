/*
 * NettyListenerFieldUnsubscribed: clean twin of NettyMethodRefUnsubscribeLeak. The same
 * long-lived shutdown promise and per-request listener, but the method reference is made once,
 * kept in a final field, and that object is passed to both addListener and removeListener, so
 * the remove finds it: the promise holds no listener between loops (DefaultFutureListeners
 * keeps its array, emptied).
 *
 * Expected:      CLEAN
 * Library:       io.netty:netty-common 4.2.21.Final
 * Growing node:  none
 * Growth:        0
 * Measured:      heapgrowth on branch cls2 (debug build), default schedule, JSON, JDK 17, 10 runs:
 *                exit 0 in 10 of 10, nothing reported
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

public class NettyListenerFieldUnsubscribed implements Runnable {
    private final Promise<Void> shutdown;
    /** The one listener object: what removeListener is given is what addListener was. */
    private final GenericFutureListener<Future<? super Void>> onShutdown = this::abortOnShutdown;

    private int loop;
    private int aborted;

    public NettyListenerFieldUnsubscribed() {
        // Netty logs through SLF4J, bound to logback here, which logs DEBUG to the console
        // without a configuration file (see the README): logging off before Netty logs.
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext logback) {
            logback.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(Level.OFF);
        }
        shutdown = new DefaultPromise<>(ImmediateEventExecutor.INSTANCE);
    }

    /** Fails the request in flight when the application shuts down. */
    void abortOnShutdown(Future<? super Void> future) {
        aborted++;
    }

    @Override
    public void run() {
        loop++;
        shutdown.addListener(onShutdown);
        // ... the request runs ...
        shutdown.removeListener(onShutdown);
    }
}
