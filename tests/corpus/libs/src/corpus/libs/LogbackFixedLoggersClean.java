/*
 * LogbackFixedLoggersClean: the twin of LogbackLoggerPerRequestLeak that names its loggers after
 * the request's handler, one of 8 fixed names: logback creates the 8 loggers in loops 1 to 8 and
 * returns the cached ones after that.
 *
 * Expected:      CLEAN (not reported)
 * Library:       ch.qos.logback:logback-classic 1.5.38 (logback-core 1.5.38, slf4j-api 2.0.17)
 * Watched field: INSTANCE_FIELD ch.qos.logback.classic.LoggerContext.loggerCache
 *                  -> ConcurrentHashMap: 6, 7, ... 11 loggers after loops 3 to 8 (ROOT, "corpus",
 *                "corpus.request" and the 8 handlers), then 11 forever
 * Growth:        +1 Logger per loop in loops 1 to 8 (4 objects), then 0 (the name String built
 *                each loop is garbage)
 * Measured:      getLoggerList().size() after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 6,
 *                8, 10, 11, 11, 11, 11, 11, 11, 11; objects reachable from the scenario: 72, 80,
 *                88, 92, then 92; both driver runs
 * heapgrowth:    at 2f1f225 (default schedule): not reported in 5 of 5 runs ("no growing
 *                objects after 11 loops in 5 snapshots")
 */
package corpus.libs;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;

public class LogbackFixedLoggersClean implements Runnable {
    private static final String[] HANDLERS = {
        "orders", "cart", "checkout", "search", "account", "catalog", "payment", "shipping"
    };

    private final ILoggerFactory loggers;

    private int loop;

    public LogbackFixedLoggersClean() {
        // A context of our own, configured by hand: no configuration file is looked for, no
        // appender is attached, and the root level is OFF, so nothing is ever printed.
        LoggerContext context = new LoggerContext();
        context.setName("corpus");
        context.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(Level.OFF);
        context.start();
        loggers = context;
    }

    @Override
    public void run() {
        loop++;
        String handler = HANDLERS[(loop - 1) % HANDLERS.length];
        Logger log = loggers.getLogger("corpus.request." + handler);
        log.debug("handled request {}", loop);
    }
}
