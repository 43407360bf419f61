/*
 * LogbackListAppenderCleared: clean twin of LogbackListAppenderLeak. The same audit logger and
 * ListAppender; the health check reads the recorded events and clears the list every loop.
 *
 * Expected:      CLEAN
 * Library:       ch.qos.logback:logback-classic and logback-core 1.5.38, org.slf4j:slf4j-api
 *                2.0.17
 * Growing node:  none: ListAppender.list -> ArrayList is empty between loops
 * Growth:        0
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 0 in 3 of 3, nothing reported, nothing leveled off (31 loops, 4
 *                snapshots)
 */
package corpus.libs;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.Logger;

public class LogbackListAppenderCleared implements Runnable {
    private final Logger audit;
    private final ListAppender<ILoggingEvent> recorded = new ListAppender<>();

    private int loop;
    private int checked;

    public LogbackListAppenderCleared() {
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
        audit.info("order {} placed", loop);
        checked += recorded.list.size();
        recorded.list.clear();
    }
}
