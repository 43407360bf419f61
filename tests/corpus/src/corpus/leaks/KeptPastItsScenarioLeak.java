/*
 * KeptPastItsScenarioLeak: every loop adds an item to a static list, and nothing removes one.
 * Each instance also leaves itself, at its fifth loop, in the JVM's system properties (a map
 * every class loader shares), in place of the instance before it: run twice in one JVM, as
 * `heapgrowth run --scenario S --scenario S` runs it (each run in a class loader of its own),
 * the first run's loader, and its list of hundreds of items, stays alive into the second run's
 * first snapshot, as a loader a JIT compile still holds does for a while.
 *
 * Expected:      LEAK, in every run
 * Growing field: STATIC_FIELD corpus.leaks.KeptPastItsScenarioLeak.items -> java.util.ArrayList
 * Growth:        +1 Item (and its sku String) per loop
 * Before 2026-12-06: heapgrowth took the classes of every loader named heapgrowth-scenario as
 *                roots, so the two runs' lists shared one path; at the second run's first
 *                snapshot it held both, a value the next snapshots never beat, and the second
 *                run said "no growing objects after 15 loops in 3 snapshots", exit 0. The
 *                stability runs of CompletableFutureLeak on a busy machine met this 1 time in 10.
 */
package corpus.leaks;

import corpus.app.Item;
import java.util.ArrayList;
import java.util.List;

public class KeptPastItsScenarioLeak implements Runnable {
    private static final String KEPT = "corpus.keptPastItsScenario";
    private static final List<Item> items = new ArrayList<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        items.add(new Item("sku-" + loop, loop)); // GROWS
        if (loop == 5) {
            // Lets go of the instance of the run before, and with it of that run's loader.
            System.getProperties().put(KEPT, this);
        }
    }
}
