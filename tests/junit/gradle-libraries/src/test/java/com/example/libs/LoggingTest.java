package com.example.libs;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.heapgrowth.junit.HeapGrowthTest;
import org.junit.platform.runner.JUnitPlatform;
import org.junit.runner.RunWith;

/** A list appender that keeps every event (the leak), and one emptied after each check. */
@RunWith(JUnitPlatform.class)
public class LoggingTest {
    private final LoggerContext context = new LoggerContext();
    private final ListAppender<ILoggingEvent> recorded = new ListAppender<>();
    private final Logger audit = context.getLogger("audit");
    private int order;

    public LoggingTest() {
        recorded.setContext(context);
        recorded.start();
        audit.addAppender(recorded);
    }

    @HeapGrowthTest
    void everyEventStaysInTheAppender() {
        order++;
        audit.info("order {} placed", order); // GROWS
    }

    @HeapGrowthTest
    void theAppenderIsClearedAfterEachCheck() {
        order++;
        audit.info("order {} placed", order);
        recorded.list.clear();
    }
}
