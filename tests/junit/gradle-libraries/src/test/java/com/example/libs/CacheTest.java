package com.example.libs;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import dev.heapgrowth.junit.HeapGrowthTest;
import org.junit.platform.runner.JUnitPlatform;
import org.junit.runner.RunWith;

/** Caches that keep a price per request (the leak) and that forget it (the clean twins). */
@RunWith(JUnitPlatform.class)
public class CacheTest {
    private final Cache<String, Long> guava = CacheBuilder.newBuilder().build();
    private final com.github.benmanes.caffeine.cache.Cache<String, Long> caffeine =
            Caffeine.newBuilder().executor(Runnable::run).build();
    private int request;

    @HeapGrowthTest
    void guavaCacheKeepsEveryRequest() {
        request++;
        guava.put("request-" + request, 100L * request); // GROWS
    }

    @HeapGrowthTest
    void guavaCacheInvalidatedAfterUse() {
        request++;
        guava.put("request-" + request, 100L * request);
        guava.invalidate("request-" + request);
    }

    @HeapGrowthTest
    void caffeineCacheKeepsEveryRequest() {
        request++;
        caffeine.put("request-" + request, 100L * request); // GROWS
    }

    @HeapGrowthTest
    void caffeineCacheInvalidatedAfterUse() {
        request++;
        caffeine.put("request-" + request, 100L * request);
        caffeine.invalidate("request-" + request);
    }
}
