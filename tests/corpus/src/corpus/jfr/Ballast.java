package corpus.jfr;

/** The big live heap of the JFR scenarios, and the garbage and pace of their loops. */
final class Ballast {
    static long[][] arrays;
    static Object[] graph;
    static volatile Object sink;

    private Ballast() {}

    static synchronized void build() {
        if (arrays != null) {
            return;
        }
        arrays = new long[128][];
        for (int i = 0; i < arrays.length; i++) {
            arrays[i] = new long[1 << 17];
        }
        graph = new Object[500_000];
        for (int i = 0; i < graph.length; i++) {
            graph[i] = new int[] {i};
        }
    }

    static void churn() {
        for (int i = 0; i < 16; i++) {
            sink = new byte[1024];
        }
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
