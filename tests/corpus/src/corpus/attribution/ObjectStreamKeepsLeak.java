/*
 * ObjectStreamKeepsLeak: an audit trail written to one long-lived ObjectOutputStream (over a
 * stream that discards the bytes, as a socket to a log collector would send them away). Every
 * loop writes one audit record; ObjectOutputStream remembers every object it wrote, so that a
 * second write of the same object becomes a back reference, until reset() is called, which
 * never is.
 *
 * Expected:      LEAK
 * Growing node:  the stream's handle table: INSTANCE_FIELD ObjectOutputStream.handles ->
 *                ObjectOutputStream$HandleTable -> INSTANCE_FIELD HandleTable.objs -> Object[]
 *                => ObjectStreamKeepsLeak$AuditRecord (the array is regrown when full, the
 *                records are stored into it: an array store, no field write)
 * Growth:        +1 AuditRecord per loop (1 object: only primitive fields), +1 handle
 * Growing call:  corpus.attribution.ObjectStreamKeepsLeak.write(ObjectStreamKeepsLeak.java:68)
 *                (ObjectOutputStream.writeObject -> HandleTable.assign, which writes
 *                HandleTable.size), via ObjectStreamKeepsLeak.java:63; the record is made at
 *                ObjectStreamKeepsLeak.java:62
 * Measured:      heapgrowth @ branch keep, default schedule, JSON, 3 runs: exit 1 in 3 of 3;
 *                node HandleTable.objs -> Object[]; attributed by the owner-field watch on
 *                HandleTable.size: "4 call(s) to writeObject()" at :68, made at :62
 * Shark:         not run
 */
package corpus.attribution;

import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;

public class ObjectStreamKeepsLeak implements Runnable {
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
        AuditRecord record = new AuditRecord(loop % 7, 1000L * loop); // ALLOCATED
        write(record); // VIA
    }

    private void write(AuditRecord record) {
        try {
            out.writeObject(record); // GROWS
            // Bug: out.reset() is never called, so the stream keeps every record it wrote.
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
