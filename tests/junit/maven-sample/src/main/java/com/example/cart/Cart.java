package com.example.cart;

import java.util.ArrayList;
import java.util.List;

/** A cart whose open() records every session in a static audit trail that is never trimmed. */
public final class Cart {
    /** The leak: one entry per open(), kept forever. */
    static final List<Session> AUDIT_TRAIL = new ArrayList<>();

    private final List<String> items = new ArrayList<>();
    private Session current;

    public void open() {
        current = new Session(System.nanoTime());
        AUDIT_TRAIL.add(current);
    }

    public void add(String item) {
        items.add(item);
    }

    public void close() {
        items.clear();
        current = null;
    }

    public int size() {
        return items.size();
    }

    /** One opening of the cart. */
    public static final class Session {
        final long openedAt;

        Session(long openedAt) {
            this.openedAt = openedAt;
        }
    }
}
