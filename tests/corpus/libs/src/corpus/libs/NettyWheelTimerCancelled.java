/*
 * NettyWheelTimerCancelled: the clean twin of NettyWheelTimerLeak. Every loop still arms a
 * session's idle timeout an hour ahead on one Netty HashedWheelTimer, and cancels it when the
 * session ends (within the loop). Cancelling does not take the timeout out of the timer at once:
 * it goes on the timer's cancelledTimeouts queue (and stays on its timeouts queue of new
 * timeouts), and the timer's worker thread drops both on its next tick, every 100 ms (the
 * default tick). Between ticks the worker sleeps (TIMED_WAITING); a snapshot taken after a
 * burst of loops and before the next tick finds every timeout the burst cancelled.
 *
 * Expected:      CLEAN (not reported)
 * Library:       io.netty:netty-common 4.2.21.Final
 * Watched field: INSTANCE_FIELD corpus.libs.NettyWheelTimerCancelled.timer -> HashedWheelTimer
 *                  -> INSTANCE_FIELD HashedWheelTimer.timeouts and .cancelledTimeouts (JCTools
 *                MPSC array queues) => HashedWheelTimer$HashedWheelTimeout; also reached from
 *                the worker thread (GcRoot(ThreadObject) "corpus-wheel" -> its Runnable, the
 *                HashedWheelTimer$Worker -> this$0)
 * Growth:        0 net: the timeouts cancelled since the worker's last tick (each a
 *                HashedWheelTimeout, its task NettyWheelTimerCancelled$Expiry and the Session,
 *                id String + byte[]), dropped at the next tick
 * Drained by:    the worker thread "corpus-wheel" (daemon), on its own 100 ms tick; nothing the
 *                scenario does wakes it
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

public class NettyWheelTimerCancelled implements Runnable {
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

    public NettyWheelTimerCancelled() {
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
        Timeout idle = timer.newTimeout(new Expiry(new Session("session-" + loop, loop)),
                IDLE_TIMEOUT_HOURS, TimeUnit.HOURS);
        // The session ends here.
        idle.cancel();
    }
}
