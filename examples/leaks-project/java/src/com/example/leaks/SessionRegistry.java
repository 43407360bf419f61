package com.example.leaks;

import java.util.HashMap;
import java.util.Map;

/** Remembers every session it ever opened: the leak. */
public final class SessionRegistry {
    static final Map<String, Session> OPEN = new HashMap<>();
    private static int next;

    private SessionRegistry() {}

    public static Session open(String user) {
        Session session = new Session(user + "#" + next++);
        OPEN.put(session.id, session);
        return session;
    }

    /** Forgets the session; never called by the leaking scenario. */
    public static void close(Session session) {
        OPEN.remove(session.id);
    }

    public static final class Session {
        final String id;
        final byte[] buffer = new byte[256];

        Session(String id) {
            this.id = id;
        }
    }
}
