/*
 * SharkHeapGrowth: shark's heap-growth detection over saved heap dumps, for the side-by-side
 * benchmark (scripts/bench-shark.sh). It does what `shark-cli heap-growth` (3.0-alpha-8,
 * HeapGrowthCommand) does with a directory of dumps: open each dump in the order given
 * (File.openHeapGraph: index the file), run ObjectGrowthDetector.findGrowingObjects with the
 * previous traversal, close the graph, and stop at the first diff that is not growing. The one
 * difference: it uses the JVM detector and matchers (ObjectGrowthDetector.forJvmHeap,
 * JvmObjectGrowthReferenceMatchers.defaults), since these are JVM dumps; the CLI always uses
 * the Android ones.
 *
 *   java -cp SHARK_JARS:CLASSES SharkHeapGrowth LOOPS_PER_DUMP DUMP...
 *
 * Prints one line per dump and a summary line, all `key=value`:
 *   dump=N ms=...                    open + traversal of dump N (shark's own time per dump)
 *   growing: NAME                    each growing node of the last diff
 *   total_ms=... growing=... traversals=... max_after_gc_mb=... peak_used_mb=...
 *
 * Memory, two figures, neither exact (a Java program has no single "peak"):
 *   - max_after_gc_mb: the most heap in use right after any collection during the run (GC
 *     notifications, summed over the heap pools). What survived a collection was reachable, so
 *     this is close to the most memory shark needed at once: a lower bound of the heap it
 *     needs, if a collection ran near its high point (with a fixed -Xmx, collections run often
 *     enough for that). Old-generation garbage that a young collection did not look at counts
 *     too, so it can also be above the live data.
 *   - peak_used_mb: the sum of the heap pools' peak usage (MemoryPoolMXBean.getPeakUsage),
 *     garbage included: an upper bound, which depends on -Xmx and the collector more than on
 *     shark.
 */

import com.sun.management.GarbageCollectionNotificationInfo;
import java.io.File;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;
import shark.CloseableHeapGraph;
import shark.HeapDiff;
import shark.HeapTraversalInput;
import shark.HeapTraversalOutput;
import shark.HprofHeapGraph;
import shark.HprofIndex;
import shark.InitialState;
import shark.JvmObjectGrowthDetectorKt;
import shark.JvmObjectGrowthReferenceMatchers;
import shark.ObjectGrowthDetector;
import shark.ShortestPathObjectNode;

public final class SharkHeapGrowth {
    private static final double MB = 1e6;

    /** The most heap bytes in use right after a collection, over all collections so far. */
    private static final AtomicLong MAX_AFTER_GC = new AtomicLong();

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: SharkHeapGrowth LOOPS_PER_DUMP DUMP...");
            System.exit(2);
        }
        int loopsPerDump = Integer.parseInt(args[0]);
        watchCollections();

        ObjectGrowthDetector detector = JvmObjectGrowthDetectorKt.forJvmHeap(
                ObjectGrowthDetector.Companion,
                JvmObjectGrowthReferenceMatchers.Companion.getDefaults());
        HeapTraversalInput last = new InitialState(loopsPerDump);
        int traversals = 0;
        long startedAll = System.nanoTime();
        for (int i = 1; i < args.length; i++) {
            long started = System.nanoTime();
            HeapTraversalOutput traversal;
            try (CloseableHeapGraph graph = HprofHeapGraph.Companion.openHeapGraph(
                    new File(args[i]), null, HprofIndex.Companion.defaultIndexedGcRootTags())) {
                traversal = detector.findGrowingObjects(graph, last);
            }
            traversals++;
            System.out.printf("dump=%d ms=%.0f%n", i, (System.nanoTime() - started) / 1e6);
            last = traversal;
            // As the CLI does: a diff that found nothing growing ends the search.
            if (traversal instanceof HeapDiff && !((HeapDiff) traversal).isGrowing()) {
                break;
            }
        }
        double totalMs = (System.nanoTime() - startedAll) / 1e6;
        int growing = 0;
        if (last instanceof HeapDiff) {
            for (ShortestPathObjectNode node : ((HeapDiff) last).getGrowingObjects()) {
                growing++;
                System.out.println("growing: " + node.getName());
            }
        }
        long peakUsed = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                peakUsed += pool.getPeakUsage().getUsed();
            }
        }
        System.out.printf("total_ms=%.0f growing=%d traversals=%d max_after_gc_mb=%.1f"
                        + " peak_used_mb=%.1f%n",
                totalMs, growing, traversals, MAX_AFTER_GC.get() / MB, peakUsed / MB);
    }

    /** Records the heap in use after every collection of every collector. */
    private static void watchCollections() {
        Set<String> heapPools = new HashSet<>();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                heapPools.add(pool.getName());
            }
        }
        for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            ((NotificationEmitter) collector).addNotificationListener((notification, handback) -> {
                if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION
                        .equals(notification.getType())) {
                    return;
                }
                GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo
                        .from((CompositeData) notification.getUserData());
                long used = 0;
                for (Map.Entry<String, MemoryUsage> pool
                        : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
                    // The map has the non-heap pools (metaspace, code cache) too.
                    if (heapPools.contains(pool.getKey())) {
                        used += pool.getValue().getUsed();
                    }
                }
                MAX_AFTER_GC.accumulateAndGet(used, Math::max);
            }, null, null);
        }
    }

    private SharkHeapGrowth() {}
}
