/*
 * NettyWheelTimerLeak: one Netty HashedWheelTimer for the application. Every loop opens a
 * session and arms its idle timeout an hour ahead; the session ends within the loop, but the
 * timeout is never cancelled, so the timer keeps every one of them (none fires during a run).
 *
 * Expected:      LEAK
 * Library:       io.netty:netty-common 4.2.21.Final
 * Growing node:  the timer's wheel, INSTANCE_FIELD HashedWheelTimer.wheel
 *                  -> HashedWheelTimer$HashedWheelBucket[512] => HashedWheelBucket, whose
 *                head/tail chain (HashedWheelTimeout.next) holds the timeouts; a timeout armed
 *                since the worker's last tick is still on the timer's timeouts queue (the
 *                worker moves new timeouts into the wheel on its 100 ms tick)
 * Growth:        +1 HashedWheelTimeout per loop (5 objects: the timeout, its
 *                NettyWheelTimerLeak$Expiry, the Session, id String + byte[])
 * Growing call:  corpus.libs.NettyWheelTimerLeak.run(NettyWheelTimerLeak.java:69)
 *                  (HashedWheelTimer.newTimeout -> timeouts.add; the worker moves it on)
 * Drained by:    nothing: the worker thread "corpus-wheel" ticks every 100 ms but only moves
 *                the timeouts into the wheel
 * Measured:      see docs/bench.md, "Issue 35" (10 runs under load, heapgrowth at main c613325)
 */
package corpus.libs;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

public class NettyWheelTimerLeak implements Runnable {
    public static final long TICK_MS = 100;
    public static final long IDLE_TIMEOUT_HOURS = 1;

    /** One client session. */
    record Session(String id, int loop) {}

    /** Closes an idle session. */
    record Expiry(Session session) implements TimerTask {
        @Override
        public void run(Timeout timeout) {
            session.id();
        }
    }

    private final HashedWheelTimer timer;

    private int loop;

    public NettyWheelTimerLeak() {
        // Netty logs through SLF4J, bound to logback here, which logs DEBUG to the console
        // without a configuration file (see the README): logging off before Netty logs.
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext logback) {
            logback.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(Level.OFF);
        }
        timer = new HashedWheelTimer(task -> {
            Thread thread = new Thread(task, "corpus-wheel");
            thread.setDaemon(true);
            return thread;
        }, TICK_MS, TimeUnit.MILLISECONDS);
        timer.start();
    }

    @Override
    public void run() {
        loop++;
        Expiry expiry = new Expiry(new Session("session-" + loop, loop)); // ALLOCATED
        timer.newTimeout(expiry, IDLE_TIMEOUT_HOURS, TimeUnit.HOURS); // GROWS
        // Bug: the session ends here, but the timeout is never cancelled.
    }
}
