/*
 * NettyMethodRefUnsubscribeLeak: every loop a request registers a method reference as listener
 * on a long-lived Netty promise (the application's shutdown, never completed during a run), and
 * removes "the same" method reference when the request ends. A method reference that captures
 * `this` is a new object each time it is evaluated, and DefaultFutureListeners.remove compares
 * by equals (identity for a lambda object), so removeListener removes nothing: the promise
 * keeps one listener per loop. The fix keeps the reference in a final field and passes that
 * object to both calls (the clean twin, NettyListenerFieldUnsubscribed).
 *
 * Expected:      LEAK
 * Library:       io.netty:netty-common 4.2.21.Final
 * Growing node:  INSTANCE_FIELD DefaultPromise.listeners -> DefaultFutureListeners
 *                  -> INSTANCE_FIELD DefaultFutureListeners.listeners -> GenericFutureListener[]
 *                  => NettyMethodRefUnsubscribeLeak$$Lambda (a hidden class)
 * Growth:        +1 listener per loop (the method reference's object, which holds the scenario)
 * Growing call:  corpus.libs.NettyMethodRefUnsubscribeLeak.run(NettyMethodRefUnsubscribeLeak.java:59)
 *                  (DefaultPromise.addListener -> DefaultFutureListeners.add)
 * Measured:      heapgrowth on branch cls2 (issue 32, debug build), default schedule, JSON, JDK 17,
 *                10 runs: exit 1 in 10 of 10, the node above every run; attributed in 10 of 10
 *                by the owner-field watch on DefaultFutureListeners: "4 call(s) to addListener()"
 *                at :59, no made at (the listener's class is hidden: sampling cannot name it),
 *                and the hint "4 call(s) to removeListener() at ...run(:62) removed nothing"
 *                (DefaultFutureListeners.remove reads size once and writes nothing)
 */
package corpus.libs;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import io.netty.util.concurrent.DefaultPromise;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.netty.util.concurrent.Promise;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

public class NettyMethodRefUnsubscribeLeak implements Runnable {
    private final Promise<Void> shutdown;

    private int loop;
    private int aborted;

    public NettyMethodRefUnsubscribeLeak() {
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
        shutdown.addListener(this::abortOnShutdown); // GROWS
        // ... the request runs ...
        // Bug: another method reference object, equal to nothing the promise holds.
        shutdown.removeListener(this::abortOnShutdown);
    }
}
