package com.example.leaks;

/** Opens and closes a session per loop: nothing grows, the snapshot is empty. */
public class LoginLogout implements Runnable {
    @Override
    public void run() {
        SessionRegistry.close(SessionRegistry.open("bob"));
    }
}
