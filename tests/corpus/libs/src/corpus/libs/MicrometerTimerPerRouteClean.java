/*
 * MicrometerTimerPerRouteClean: clean twin of MicrometerTimerPerUriLeak. The same Timer per
 * request, tagged with the route template "/orders/{id}": one Timer from loop 1 on.
 *
 * Expected:      CLEAN
 * Library:       io.micrometer:micrometer-core 1.17.2 (micrometer-commons, -observation 1.17.2)
 * Growing node:  none: the registry's maps hold 1 meter from loop 1 on
 * Growth:        0
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 0 in 3 of 3, nothing reported, nothing leveled off (31 loops, 4
 *                snapshots)
 */
package corpus.libs;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

public class MicrometerTimerPerRouteClean implements Runnable {
    private final MeterRegistry registry;

    private int loop;

    public MicrometerTimerPerRouteClean() {
        // As MicrometerTagCardinalityLeak: logback is on the class path; turn it off before
        // Micrometer logs its first DEBUG line.
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext logback) {
            logback.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(Level.OFF);
        }
        registry = new SimpleMeterRegistry();
    }

    @Override
    public void run() {
        loop++;
        String uri = "/orders/{id}";
        Timer timer = Timer.builder("http.server.requests").tag("uri", uri).register(registry);
        timer.record(Duration.ofMillis(loop % 50));
    }
}
