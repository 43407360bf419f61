package corpus.jfr;

import java.util.ArrayDeque;

/**
 * The clean twin of {@link BigHeapSessions}: the same heap, sessions and garbage, but only
 * the last 400 sessions are kept.
 */
public class BigHeapSessionsBounded implements Runnable {
    static final ArrayDeque<BigHeapSessions.Session> SESSIONS = new ArrayDeque<>();
    private long opened;

    public BigHeapSessionsBounded() {
        Ballast.build();
    }

    @Override
    public void run() {
        SESSIONS.add(new BigHeapSessions.Session(++opened));
        if (SESSIONS.size() > 400) {
            SESSIONS.removeFirst();
        }
        Ballast.churn();
    }
}
