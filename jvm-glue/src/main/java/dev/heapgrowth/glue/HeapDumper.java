package dev.heapgrowth.glue;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;

/** Writes heap dumps for the engine. */
public final class HeapDumper {
    private HeapDumper() {}

    /**
     * Writes an HPROF dump of the live objects to {@code path} (which must end with
     * {@code .hprof} and must not exist). {@code live=true} makes the JVM run a full GC first,
     * so no explicit {@code System.gc()} is needed.
     */
    public static void dumpHeap(String path) throws IOException {
        HotSpotDiagnosticMXBean bean =
                ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(path, true);
    }
}
