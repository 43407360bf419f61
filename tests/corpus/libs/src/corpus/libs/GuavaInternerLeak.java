/*
 * GuavaInternerLeak: request paths are interned with a Guava strong interner
 * (Interners.newStrongInterner()) to save memory on duplicates, but the path includes the order
 * id, so every loop interns a new string and the strong interner keeps them all. Its internal
 * map is a MapMakerInternalMap: segments whose tables are AtomicReferenceArrays, entries linked
 * in bucket chains, counts updated under the segment's lock.
 *
 * Expected:      LEAK
 * Library:       com.google.guava:guava 33.8.0-jre
 * Growing node:  the entry tables: INSTANCE_FIELD corpus.libs.GuavaInternerLeak.paths (declared
 *                Interner, final) -> com.google.common.collect.Interners$InternerImpl
 *                  -> INSTANCE_FIELD InternerImpl.map -> MapMakerInternalMap
 *                  -> INSTANCE_FIELD MapMakerInternalMap.segments -> MapMakerInternalMap$Segment[]
 *                  => Segment -> INSTANCE_FIELD Segment.table
 *                     -> java.util.concurrent.atomic.AtomicReferenceArray
 *                  -> INSTANCE_FIELD AtomicReferenceArray.array -> Object[]
 *                  => MapMakerInternalMap$StrongKeyDummyValueEntry (bucket chains by next)
 *                     -> key String
 * Growth:        +1 entry per loop (3 objects: the entry, the interned String + byte[])
 * Growing call:  corpus.libs.GuavaInternerLeak.run(GuavaInternerLeak.java:48)
 *                  (into Interners$InternerImpl.intern -> MapMakerInternalMap.putIfAbsent
 *                  -> Segment.put)
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 1 in 3 of 3; node INSTANCE_FIELD AtomicReferenceArray.array ->
 *                Object[] (the segments' tables), children at loops 3, 7, 15, 31, 124, 496, 1000:
 *                3, 7, 11, 21, 94, 385, 783 (597 StrongKeyDummyValueEntry and 186
 *                LinkedStrongKeyDummyValueEntry at loop 1000; the rest further down bucket chains).
 *                Attribution (all 3): not_attributed, "cannot follow the path in the running JVM:
 *                ... Unable to make field private final java.lang.Object[]
 *                java.util.concurrent.atomic.AtomicReferenceArray.array accessible: module
 *                java.base does not "opens java.util.concurrent.atomic" to unnamed module @..."
 */
package corpus.libs;

import com.google.common.collect.Interner;
import com.google.common.collect.Interners;

public class GuavaInternerLeak implements Runnable {
    private final Interner<String> paths = Interners.newStrongInterner();

    private int loop;
    private int totalLength;

    @Override
    public void run() {
        loop++;
        String path = "/orders/" + loop; // bug: the id makes every path distinct
        String interned = paths.intern(path); // GROWS
        totalLength += interned.length();
    }
}
