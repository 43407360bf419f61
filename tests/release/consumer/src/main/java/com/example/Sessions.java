package com.example;

import java.util.ArrayList;
import java.util.List;

/** The user's code of the consumer test: logging in keeps an audit line that is never trimmed. */
public class Sessions {
    private static final List<String> AUDIT = new ArrayList<>();
    private final List<String> open = new ArrayList<>();

    public void login(String user) {
        open.add(user);
        AUDIT.add(user + " logged in"); // the leak; the README names this line (Sessions.java:13)
    }

    /** The clean twin: the same session bookkeeping, no audit line. */
    public void loginWithoutAudit(String user) {
        open.add(user);
    }

    public void logout(String user) {
        open.remove(user);
    }
}
