package com.example.service;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A service that handles about 50 requests a second on four worker threads. Each request
 * builds a response from about 400 KiB of short-lived buffers and keeps a 16 KiB audit record
 * of it: in {@code leak} mode every record stays in a static list (16 KiB a request, about 4 %
 * of the bytes allocated); in {@code clean} mode the list keeps the last 200 records.
 *
 * <pre>java -Xmx1g -cp CLASSES com.example.service.SessionService leak|clean</pre>
 */
public final class SessionService {
    /** Every request's audit record: the leak. */
    static final List<byte[]> AUDIT = new ArrayList<>();
    /** The clean twin's records: the last 200. */
    static final Deque<byte[]> RECENT = new ArrayDeque<>();
    static volatile Object sink;

    private final boolean leak;

    SessionService(boolean leak) {
        this.leak = leak;
    }

    void handle(int request) {
        byte[] response = null;
        for (int i = 0; i < 100; i++) {
            response = new byte[4096];
            response[i] = (byte) request;
        }
        sink = response;
        remember(new byte[16 * 1024]);
    }

    private void remember(byte[] record) {
        synchronized (SessionService.class) {
            if (leak) {
                AUDIT.add(record);
            } else {
                RECENT.addLast(record);
                if (RECENT.size() > 200) {
                    RECENT.removeFirst();
                }
            }
        }
    }

    public static void main(String[] args) throws Exception {
        boolean leak = args.length > 0 && args[0].equals("leak");
        SessionService service = new SessionService(leak);
        ExecutorService workers = Executors.newFixedThreadPool(4);
        System.out.println("ready");
        System.out.flush();
        for (int request = 0; ; request++) {
            int number = request;
            workers.execute(() -> service.handle(number));
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }
}
