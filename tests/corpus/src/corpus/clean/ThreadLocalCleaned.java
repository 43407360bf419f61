/*
 * ThreadLocalCleaned: every loop sets a request context in a static ThreadLocal, uses it, and
 * removes it in a finally block, so the runner thread's ThreadLocalMap keeps nothing.
 *
 * Expected:      CLEAN (not reported)
 * Watched node:  GcRoot(ThreadObject) -> INSTANCE_FIELD Thread.threadLocals
 *                  -> ThreadLocal$ThreadLocalMap: no entry for CONTEXT between loops
 * Shark:         not reported
 */
package corpus.clean;

import corpus.app.RequestContext;

public class ThreadLocalCleaned implements Runnable {
    private static final ThreadLocal<RequestContext> CONTEXT = new ThreadLocal<>();

    private int loop;
    private long bytesHandled;

    @Override
    public void run() {
        loop++;
        CONTEXT.set(new RequestContext("req-" + loop, new byte[256]));
        try {
            handle();
        } finally {
            CONTEXT.remove();
        }
    }

    private void handle() {
        bytesHandled += CONTEXT.get().bodyLength();
    }
}
