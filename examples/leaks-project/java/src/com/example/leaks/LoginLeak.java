package com.example.leaks;

/** Opens a session per loop and never closes it: a growing path in the snapshot. */
public class LoginLeak implements Runnable {
    @Override
    public void run() {
        SessionRegistry.open("alice");
    }
}
