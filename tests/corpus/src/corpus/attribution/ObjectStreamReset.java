/*
 * ObjectStreamReset: clean twin of ObjectStreamKeepsLeak. The same long-lived
 * ObjectOutputStream and audit records; after each write the stream is reset(), which forgets
 * the objects written (the handle table is cleared; its arrays keep their size).
 *
 * Expected:      CLEAN
 * Growing node:  none: HandleTable.objs holds no record between loops
 * Growth:        0
 * Measured:      heapgrowth @ branch keep, default schedule, 3 runs: exit 0 in 3 of 3, nothing
 *                reported
 */
package corpus.attribution;

import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;

public class ObjectStreamReset implements Runnable {
    /** One audited action: who, what, when (primitives only, one object per record). */
    static final class AuditRecord implements Serializable {
        private static final long serialVersionUID = 1L;
        private final int user;
        private final long action;

        AuditRecord(int user, long action) {
            this.user = user;
            this.action = action;
        }
    }

    /** Sends the bytes away: nothing is kept here. */
    static final class Discard extends OutputStream {
        @Override
        public void write(int b) {
        }

        @Override
        public void write(byte[] b, int off, int len) {
        }
    }

    private final ObjectOutputStream out = open();

    private int loop;

    @Override
    public void run() {
        loop++;
        AuditRecord record = new AuditRecord(loop % 7, 1000L * loop);
        try {
            out.writeObject(record);
            out.reset();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ObjectOutputStream open() {
        try {
            return new ObjectOutputStream(new Discard());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
