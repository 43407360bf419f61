/*
 * LogbackListAppenderLeak: an audit logger ("corpus.audit", level INFO, not additive) has a
 * logback ListAppender attached, to let a health check look at recent audit events; nothing
 * ever reads or clears it, so it records every event. The appender is held by the user (a final
 * field) and by the logger's appender list; its events are in its public field `list`, an
 * ArrayList.
 *
 * Expected:      LEAK
 * Library:       ch.qos.logback:logback-classic and logback-core 1.5.38, org.slf4j:slf4j-api
 *                2.0.17
 * Growing node:  INSTANCE_FIELD ch.qos.logback.core.read.ListAppender.list -> java.util.ArrayList
 *                => ch.qos.logback.classic.spi.LoggingEvent, reached through
 *                INSTANCE_FIELD corpus.libs.LogbackListAppenderLeak.recorded (declared
 *                ListAppender, final) -> ListAppender (also through the logger's
 *                AppenderAttachableImpl.appenderList -> COWArrayList)
 * Growth:        +1 LoggingEvent per loop, with its argument Object[] and Integer (loop > 127),
 *                java.time.Instant and formatted message once asked for (not asked here)
 * Growing call:  corpus.libs.LogbackListAppenderLeak.run(LogbackListAppenderLeak.java:68)
 *                  (into Logger.info -> filterAndLog_1 -> buildLoggingEventAndAppend
 *                  -> callAppenders -> AppenderBase.doAppend -> ListAppender.append
 *                  -> ArrayList.add)
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 1 in 3 of 3; node INSTANCE_FIELD ListAppender.list -> ArrayList
 *                (through LogbackListAppenderLeak.recorded), children at loops 3, 7, 15, 31, 124,
 *                496, 1000: 3, 7, 15, 31, 124, 496, 1000 LoggingEvents. Attribution (all 3):
 *                attributed, calls to add() (by docs/attribution.md's order a proxy:
 *                ListAppender.list is a public non-final List; the JSON does not name the
 *                recorder), 1 stack (4 calls) of 8 frames:
 *                ListAppender.append(ListAppender.java:26) < AppenderBase.doAppend <
 *                AppenderAttachableImpl.appendLoopOnAppenders < Logger.appendLoopOnAppenders <
 *                Logger.callAppenders < Logger.buildLoggingEventAndAppend < Logger.filterAndLog_1 <
 *                Logger.info(Logger.java:593); the stack ends there: the GROWS frame, the 9th, is
 *                cut (every stack seen is at most 8 frames)
 */
package corpus.libs;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.Logger;

public class LogbackListAppenderLeak implements Runnable {
    private final Logger audit;
    private final ListAppender<ILoggingEvent> recorded = new ListAppender<>();

    private int loop;

    public LogbackListAppenderLeak() {
        // A context of our own, configured by hand: no configuration file, the root level OFF,
        // and only the ListAppender on "corpus.audit" (not additive), so nothing is printed.
        LoggerContext context = new LoggerContext();
        context.setName("corpus");
        context.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(Level.OFF);
        context.start();
        ch.qos.logback.classic.Logger logger = context.getLogger("corpus.audit");
        logger.setLevel(Level.INFO);
        logger.setAdditive(false);
        recorded.setContext(context);
        recorded.start();
        logger.addAppender(recorded);
        audit = logger;
    }

    @Override
    public void run() {
        loop++;
        audit.info("order {} placed", loop); // GROWS
        // Bug: the health check that reads and clears recorded.list was never written.
    }
}
