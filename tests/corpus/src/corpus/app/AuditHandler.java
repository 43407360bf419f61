package corpus.app;

import java.util.logging.Handler;
import java.util.logging.LogRecord;

/** A java.util.logging handler that counts the records it is given (writes nothing). */
public final class AuditHandler extends Handler {
    private final String name;
    private int published;

    public AuditHandler(String name) {
        this.name = name;
    }

    @Override
    public void publish(LogRecord record) {
        if (isLoggable(record)) {
            published++;
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }

    public String name() {
        return name;
    }

    public int published() {
        return published;
    }
}
