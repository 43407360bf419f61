/*
 * MicrometerTagCardinalityLeak: every loop counts a request in a Micrometer SimpleMeterRegistry
 * with the request's id as a tag, registry.counter("requests", "id", String.valueOf(loop)):
 * every distinct tag value is a new meter, and a registry keeps its meters until removed, the
 * classic tag-cardinality leak.
 *
 * Expected:      LEAK
 * Library:       io.micrometer:micrometer-core 1.17.2 (micrometer-commons, -observation 1.17.2)
 * Growing field: three maps of io.micrometer.core.instrument.MeterRegistry hold every meter:
 *                meterMap -> java.util.concurrent.ConcurrentHashMap (Meter$Id -> meter),
 *                preFilterIdToMeterMap -> java.util.HashMap (Meter$Id -> meter) and
 *                meterToPreFilterIdMap -> java.util.HashMap (meter -> Meter$Id), reached through
 *                INSTANCE_FIELD corpus.libs.MicrometerTagCardinalityLeak.registry (declared
 *                MeterRegistry, final) -> io.micrometer.core.instrument.simple.SimpleMeterRegistry
 * Growth:        +1 meter per loop, 11 objects: cumulative.CumulativeCounter + its
 *                java.util.concurrent.atomic.DoubleAdder, Meter$Id (shared by the three maps),
 *                Tags, Tag[], ImmutableTag, the tag value String + byte[], a
 *                ConcurrentHashMap$Node and 2 HashMap$Node
 * Growing call:  corpus.libs.MicrometerTagCardinalityLeak.run(MicrometerTagCardinalityLeak.java:60)
 *                  (into MeterRegistry.counter -> Counter.Builder.register
 *                  -> MeterRegistry.registerMeterIfNecessary -> getOrCreateMeter)
 * Measured:      getMeters().size() after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7,
 *                11, 19, 35, 67, 131, 259, 515 (each map the same); objects reachable from the
 *                scenario: 70, 92, 114, 158, 246, 422, 774, 1478, 2886, 5702 (+11 per loop);
 *                identical in both driver runs
 * heapgrowth:    at 2f1f225 (default schedule): reported in 3 of 3 runs, only
 *                MeterRegistry.meterToPreFilterIdMap -> HashMap, children [key]
 *                CumulativeCounter and [x] Meter$Id, 23 objects (6 new) after 23 loops. Before
 *                the constructor turned logging off, the report began with logback's DEBUG line
 */
package corpus.libs;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

public class MicrometerTagCardinalityLeak implements Runnable {
    private final MeterRegistry registry;

    private int loop;

    public MicrometerTagCardinalityLeak() {
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
        Counter requests = registry.counter("requests", "id", String.valueOf(loop)); // GROWS
        requests.increment();
    }
}
