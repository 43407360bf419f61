/*
 * JulHandlerLeak: a request handler "configures auditing" on every request with
 * Logger.getLogger("corpus.jul.orders").addHandler(new AuditHandler(...)), then logs the order.
 * The logger keeps every handler, so each loop adds one more (and each record goes to all of them).
 *
 * Expected:      LEAK
 * Growing node:  the handlers of Logger "corpus.jul.orders":
 *                STATIC_FIELD corpus.leaks.JulHandlerLeak.log -> java.util.logging.Logger
 *                  -> INSTANCE_FIELD Logger.config -> java.util.logging.Logger$ConfigurationData
 *                  -> INSTANCE_FIELD ConfigurationData.handlers
 *                     -> java.util.concurrent.CopyOnWriteArrayList (array replaced on every add)
 *                  => corpus.app.AuditHandler
 *                The static field is the logger's only strong path: the JDK's LogManager holds
 *                loggers weakly (LoggerContext.namedLoggers -> LogManager$LoggerWeakRef, the
 *                parent's Logger.kids -> LoggerWeakRef, LogNode.loggerRef), so without the field a
 *                GC would collect the logger and all its handlers: no leak. The field is the
 *                usual "private static Logger log" of a class that logs.
 * Growth:        +1 AuditHandler per loop (4 objects: the handler, its name String + byte[] and
 *                the java.util.logging.ErrorManager each Handler makes); the
 *                CopyOnWriteArrayList's Object[] is replaced on every add
 * Growing call:  corpus.leaks.JulHandlerLeak.run(JulHandlerLeak.java:50) (Logger.addHandler ->
 *                CopyOnWriteArrayList.add inside the JDK)
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7, 11, 19, 35, 67, 131,
 *                259, 515 handlers (= live AuditHandlers); JVM live objects +4.0 per loop
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: reported,
 *                exit 1: STATIC_FIELD JulHandlerLeak.log -> Logger -> Logger.config ->
 *                ConfigurationData.handlers -> CopyOnWriteArrayList, children [x] AuditHandler 4,
 *                6, 8, 10, 12, 18, 24
 * Shark:         not run; by its rule reported (+2 AuditHandlers per dump)
 */
package corpus.leaks;

import corpus.app.AuditHandler;
import java.util.logging.Logger;

public class JulHandlerLeak implements Runnable {
    public static final String LOGGER_NAME = "corpus.jul.orders";

    private static Logger log = Logger.getLogger(LOGGER_NAME);

    private int loop;

    public JulHandlerLeak() {
        log.setUseParentHandlers(false);
    }

    @Override
    public void run() {
        loop++;
        Logger.getLogger(LOGGER_NAME).addHandler(new AuditHandler("audit-" + loop)); // GROWS
        log.info("order placed");
    }
}
