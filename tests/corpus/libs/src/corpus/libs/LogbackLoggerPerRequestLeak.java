/*
 * LogbackLoggerPerRequestLeak: a request handler asks logback for a logger named after each
 * request, "corpus.request." + loop. Logback keeps every logger it has handed out for the life of
 * its LoggerContext (there is no way to remove one), so each unique name stays forever.
 *
 * Expected:      LEAK
 * Library:       ch.qos.logback:logback-classic 1.5.38 (logback-core 1.5.38, slf4j-api 2.0.17)
 * Growing field: INSTANCE_FIELD ch.qos.logback.classic.LoggerContext.loggerCache
 *                  -> java.util.concurrent.ConcurrentHashMap, reached through
 *                INSTANCE_FIELD corpus.libs.LogbackLoggerPerRequestLeak.loggers (declared
 *                org.slf4j.ILoggerFactory, final) -> LoggerContext. A second structure grows
 *                with it: the "corpus.request" logger's Logger.childrenList
 *                  -> CopyOnWriteArrayList (its array replaced on every add) holds the same
 *                loggers. No SLF4J binding is involved: the context is created by hand
 * Growth:        +1 ch.qos.logback.classic.Logger per loop, 4 objects: the Logger, its
 *                ConcurrentHashMap$Node, its name String + byte[]; the children array +1 slot
 *                (ROOT, "corpus" and "corpus.request" are created in loop 1)
 * Growing call:  corpus.libs.LogbackLoggerPerRequestLeak.run(LogbackLoggerPerRequestLeak.java:53)
 *                  (into LoggerContext.getLogger -> Logger.createChildByName, loggerCache.put)
 * Measured:      getLoggerList().size() after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 6, 8,
 *                10, 14, 22, 38, 70, 134, 262, 518 (loop + 3); objects reachable from the
 *                scenario: 72, 80, 88, 104, 136, 200, 328, 584, 1096, 2120 (+4 per loop);
 *                identical in both driver runs
 * heapgrowth:    at 2f1f225 (default schedule): reported in 3 of 3 runs, LoggerContext
 *                .loggerCache -> ConcurrentHashMap, children [key] String and [x] Logger,
 *                25 objects (6 new) after 23 loops (childrenList is not named)
 */
package corpus.libs;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;

public class LogbackLoggerPerRequestLeak implements Runnable {
    private final ILoggerFactory loggers;

    private int loop;

    public LogbackLoggerPerRequestLeak() {
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
        Logger log = loggers.getLogger("corpus.request." + loop); // GROWS
        log.debug("handled request {}", loop);
    }
}
