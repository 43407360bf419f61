package com.example.libs;

import dev.heapgrowth.junit.HeapGrowthTest;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.platform.runner.JUnitPlatform;
import org.junit.runner.RunWith;

/** A counter tagged with the request id (one meter per request) and one tagged with its route. */
@RunWith(JUnitPlatform.class)
public class MetricsTest {
    private final MeterRegistry registry = new SimpleMeterRegistry();
    private int request;

    @HeapGrowthTest
    void aCounterPerRequestId() {
        request++;
        registry.counter("requests", "id", String.valueOf(request)).increment(); // GROWS
    }

    @HeapGrowthTest
    void aCounterPerRoute() {
        request++;
        registry.counter("requests", "route", "/orders").increment();
    }
}
