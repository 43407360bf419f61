/*
 * ThreadLocalChurn: every loop makes a ThreadLocal of its own, sets a scratch buffer in it and
 * never removes it; the ThreadLocal object dies with the loop. The runner thread's
 * ThreadLocalMap keeps the entry (a WeakReference to the ThreadLocal, and the buffer strongly)
 * until a later set() or get() probes past the stale entry and expunges it.
 *
 * Expected:      CLEAN (not reported)
 * Watched node:  GcRoot(ThreadObject "heapgrowth-scenario") -> INSTANCE_FIELD
 *                Thread.threadLocals -> ThreadLocal$ThreadLocalMap: 3 to 5 stale entries
 *                (cleared ThreadLocalMap$Entry, its byte[64]) at every snapshot
 * Growth:        0 net
 * Shark:         not reported (its ThreadLocalMap entries are weak references)
 */
package corpus.clean;

public class ThreadLocalChurn implements Runnable {
    private int loop;

    @Override
    public void run() {
        loop++;
        ThreadLocal<byte[]> scratch = new ThreadLocal<>();
        scratch.set(new byte[64]);
        scratch.get()[0] = (byte) loop;
    }
}
