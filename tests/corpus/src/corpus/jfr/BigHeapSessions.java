package corpus.jfr;

import java.util.ArrayList;
import java.util.List;

/**
 * A scenario with a heap too big to dump often (128 MiB of arrays and half a million small
 * objects, built once), that keeps one 4 KiB session per loop in a static list beside 16 KiB of
 * garbage: the leak `run --jfr` must find from old-object samples alone. Its clean twin is
 * {@link BigHeapSessionsBounded}. A loop sleeps a millisecond, so a second of loops keeps about
 * a megabyte, as a slow service leak does.
 */
public class BigHeapSessions implements Runnable {
    static final class Session {
        final long id;
        final byte[] payload = new byte[4096];

        Session(long id) {
            this.id = id;
        }
    }

    static final List<Session> SESSIONS = new ArrayList<>();
    private long opened;

    public BigHeapSessions() {
        Ballast.build();
    }

    @Override
    public void run() {
        SESSIONS.add(new Session(++opened));
        Ballast.churn();
    }
}
