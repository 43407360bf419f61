/*
 * ThreadLocalLeak: a static ThreadLocal<List<byte[]>> used as a per-thread scratch-buffer pool
 * that is only ever added to. The scenario runs on the same thread every loop, so the list in
 * that thread's ThreadLocalMap keeps growing.
 *
 * Expected:      LEAK
 * Growing node:  the ArrayList held by ThreadLocal$ThreadLocalMap$Entry.value, reached from the
 *                runner thread: GcRoot(ThreadObject) -> INSTANCE_FIELD Thread.threadLocals
 *                  -> ThreadLocal$ThreadLocalMap -> INSTANCE_FIELD ThreadLocalMap.table
 *                  -> ThreadLocal$ThreadLocalMap$Entry[] -> ARRAY_ENTRY [x]
 *                  -> ThreadLocal$ThreadLocalMap$Entry -> INSTANCE_FIELD Entry.value
 *                  -> java.util.ArrayList
 *                (Entry is a WeakReference: its referent, the ThreadLocal key, is weak; its value
 *                is strong.)
 * Growth:        +1 byte[32] per loop
 * Growing call:  corpus.leaks.ThreadLocalLeak.run(ThreadLocalLeak.java:34)
 * Shark:         reported; not attributable by a field proxy (the list is in no field of a
 *                user class: the ThreadLocal is static final and the list sits in Entry.value)
 */
package corpus.leaks;

import java.util.ArrayList;
import java.util.List;

public class ThreadLocalLeak implements Runnable {
    private static final ThreadLocal<List<byte[]>> SCRATCH = ThreadLocal.withInitial(ArrayList::new);

    private int loop;

    @Override
    public void run() {
        loop++;
        List<byte[]> buffers = SCRATCH.get();
        buffers.add(new byte[32]); // GROWS
        buffers.get(buffers.size() - 1)[0] = (byte) loop;
    }
}
