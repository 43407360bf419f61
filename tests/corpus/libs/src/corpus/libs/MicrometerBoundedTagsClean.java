/*
 * MicrometerBoundedTagsClean: the twin of MicrometerTagCardinalityLeak whose tag comes from a
 * bounded set, the request's shard (loop % 20): the registry creates 20 counters in loops 1 to
 * 20 and finds the existing one after that.
 *
 * Expected:      CLEAN (not reported)
 * Library:       io.micrometer:micrometer-core 1.17.2 (micrometer-commons, -observation 1.17.2)
 * Watched field: MeterRegistry.meterMap, .preFilterIdToMeterMap and .meterToPreFilterIdMap of
 *                the SimpleMeterRegistry in MicrometerBoundedTagsClean.registry: 20 meters from
 *                loop 20 on
 * Growth:        +1 meter per loop in loops 1 to 20 (11 objects), then 0
 * Measured:      getMeters().size() after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7,
 *                11, 19, 20, 20, 20, 20, 20; objects reachable from the scenario: 70, 92, 114,
 *                158, 246, then 257; both driver runs
 * heapgrowth:    at 2f1f225 (default schedule): FALSE POSITIVE in 5 of 5 runs (the bound is
 *                reached at loop 20, the run ends at loop 23): MeterRegistry
 *                .meterToPreFilterIdMap -> HashMap, children CumulativeCounter and Meter$Id,
 *                20 objects (3 new)
 */
package corpus.libs;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

public class MicrometerBoundedTagsClean implements Runnable {
    public static final int SHARDS = 20;

    private final MeterRegistry registry;

    private int loop;

    public MicrometerBoundedTagsClean() {
        // logback-classic is on the corpus class path, so SLF4J binds to it, and logback without
        // a configuration file logs DEBUG to the console: Micrometer's first line ("Using SLF4J
        // as the default logging framework") would land in heapgrowth's report, since the
        // scenario JVM's stdout is passed through. Turn logging off before Micrometer logs.
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext logback) {
            logback.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(Level.OFF);
        }
        registry = new SimpleMeterRegistry();
    }

    @Override
    public void run() {
        loop++;
        Counter requests = registry.counter("requests", "shard", String.valueOf(loop % SHARDS));
        requests.increment();
    }
}
