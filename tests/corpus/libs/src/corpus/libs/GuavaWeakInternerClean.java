/*
 * GuavaWeakInternerClean: the twin of GuavaInternerLeak with a weak interner
 * (Interners.newWeakInterner()): the same request path with its order id, a new string every
 * loop, but the interner holds its entries through weak references to them, and nothing else
 * keeps the string once the loop is done. The next collection clears the entry's reference;
 * the interner's map (MapMakerInternalMap) drains its reference queue on later writes, up to 16
 * entries at a time, and drops those entries then.
 *
 * Expected:      CLEAN (not reported)
 * Library:       com.google.guava:guava 33.8.0-jre
 * Watched node:  the entry tables, as in GuavaInternerLeak: ... MapMakerInternalMap$Segment.table
 *                  -> AtomicReferenceArray -> INSTANCE_FIELD AtomicReferenceArray.array
 *                  -> Object[] => MapMakerInternalMap$WeakKeyDummyValueEntry (a WeakReference
 *                  to its key), bucket chains through next
 * Growth:        0 net: the entries of strings that died since the map last drained its queue,
 *                cleared (null referent in the dump), 3 at every snapshot with the default
 *                schedule
 * Measured:      heapgrowth at 6a2d1c1 (before issue 29): FALSE POSITIVE, "1 growing node
 *                after 4000 loops in 10 snapshots": AtomicReferenceArray.array, objects (1532,
 *                +789): 1193 WeakKeyDummyValueEntry and 339 LinkedWeakKeyDummyValueEntry, all
 *                cleared. Since: not reported, after 31 loops in 4 snapshots (see the README
 *                beside this file for the runs)
 */
package corpus.libs;

import com.google.common.collect.Interner;
import com.google.common.collect.Interners;

public class GuavaWeakInternerClean implements Runnable {
    private final Interner<String> paths = Interners.newWeakInterner();

    private int loop;
    private int totalLength;

    @Override
    public void run() {
        loop++;
        String path = "/orders/" + loop;
        String interned = paths.intern(path);
        totalLength += interned.length();
    }
}
