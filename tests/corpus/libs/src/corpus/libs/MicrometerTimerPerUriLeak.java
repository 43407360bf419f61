/*
 * MicrometerTimerPerUriLeak: every loop times a request with a Micrometer Timer tagged with the
 * raw request URI, "/orders/<id>": every distinct URI is a new Timer, and a registry keeps its
 * meters until removed (the fix is to tag with the route template). A Timer is larger than a
 * Counter (corpus.libs.MicrometerTagCardinalityLeak): a cumulative count and total, a
 * TimeWindowMax with its ring of AtomicLongs, a pause detector and a no-op histogram.
 *
 * Expected:      LEAK
 * Library:       io.micrometer:micrometer-core 1.17.2 (micrometer-commons, -observation 1.17.2)
 * Growing node:  the three meter maps of io.micrometer.core.instrument.MeterRegistry
 *                (meterMap -> ConcurrentHashMap, preFilterIdToMeterMap -> HashMap,
 *                meterToPreFilterIdMap -> HashMap), reached through
 *                INSTANCE_FIELD corpus.libs.MicrometerTimerPerUriLeak.registry (declared
 *                MeterRegistry, final) -> io.micrometer.core.instrument.simple.SimpleMeterRegistry,
 *                => io.micrometer.core.instrument.cumulative.CumulativeTimer / Meter$Id
 * Growth:        +1 Timer per loop (CumulativeTimer, its adders/atomics, TimeWindowMax and its
 *                AtomicLong[], Meter$Id, Tags, Tag[], ImmutableTag, URI String + byte[], a
 *                ConcurrentHashMap$Node and 2 HashMap$Node)
 * Growing call:  corpus.libs.MicrometerTimerPerUriLeak.run(MicrometerTimerPerUriLeak.java:66)
 *                  (into Timer.Builder.register -> MeterRegistry.timer
 *                  -> registerMeterIfNecessary -> getOrCreateMeter)
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 1 in 3 of 3; 3 nodes, all under SimpleMeterRegistry:
 *                MeterRegistry.meterToPreFilterIdMap -> HashMap, children at loops 3, 7, 15, 31,
 *                124, 496, 1000: 6, 14, 30, 62, 248, 992, 2000 ([key] CumulativeTimer, [x]
 *                Meter$Id), attributed, calls to put(), getOrCreateMeter(MeterRegistry.java:746) <
 *                registerMeterIfNecessary < timer < Timer$Builder.register (2) <
 *                MicrometerTimerPerUriLeak.run(MicrometerTimerPerUriLeak.java:66) = the GROWS line;
 *                MeterRegistry.preFilterIdToMeterMap -> HashMap (children 0, grows in references),
 *                attributed, calls to put(), getOrCreateMeter(MeterRegistry.java:745) < ... <
 *                run(:66); MeterRegistry.meterMap -> ConcurrentHashMap (children 0, references),
 *                not_attributed, "the node holds a java.util.concurrent.ConcurrentHashMap (or
 *                containers of several classes), whose internal state heapgrowth does not know how
 *                to watch; allocation sampling saw no new object stay under the node during the
 *                attribution loops (the growth may happen in code the recorder does not see)"
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

public class MicrometerTimerPerUriLeak implements Runnable {
    private final MeterRegistry registry;

    private int loop;

    public MicrometerTimerPerUriLeak() {
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
        String uri = "/orders/" + loop; // bug: the raw URI, not the route template
        Timer timer = Timer.builder("http.server.requests").tag("uri", uri).register(registry); // GROWS
        timer.record(Duration.ofMillis(loop % 50));
    }
}
