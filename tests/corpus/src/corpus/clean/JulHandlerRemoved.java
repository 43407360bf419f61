/*
 * JulHandlerRemoved: the clean twin of leaks.JulHandlerLeak. Every loop still adds an audit
 * handler to Logger "corpus.jul.orders" and logs the order, then removes the handler and closes
 * it.
 *
 * Expected:      CLEAN (not reported)
 * Watched node:  STATIC_FIELD corpus.clean.JulHandlerRemoved.log -> java.util.logging.Logger
 *                  -> Logger.config -> Logger$ConfigurationData -> ConfigurationData.handlers
 *                  -> CopyOnWriteArrayList: 0 handlers between loops (the array is replaced on
 *                every add and remove; between loops it is an empty Object[0])
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 0 handlers, 0 live
 *                AuditHandlers; JVM live objects +0 per loop after loop 7
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: not
 *                reported (7 loops, 3 snapshots), exit 0
 * Shark:         not reported
 */
package corpus.clean;

import corpus.app.AuditHandler;
import java.util.logging.Handler;
import java.util.logging.Logger;

public class JulHandlerRemoved implements Runnable {
    public static final String LOGGER_NAME = "corpus.jul.orders";

    private static Logger log = Logger.getLogger(LOGGER_NAME);

    private int loop;

    public JulHandlerRemoved() {
        log.setUseParentHandlers(false);
    }

    @Override
    public void run() {
        loop++;
        Handler audit = new AuditHandler("audit-" + loop);
        Logger.getLogger(LOGGER_NAME).addHandler(audit);
        log.info("order placed");
        Logger.getLogger(LOGGER_NAME).removeHandler(audit);
        audit.close();
    }
}
