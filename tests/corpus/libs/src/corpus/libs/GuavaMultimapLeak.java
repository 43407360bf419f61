/*
 * GuavaMultimapLeak: open orders are kept per customer in a Guava ArrayListMultimap (4
 * customers, the order goes to customer loop % 4); orders are never removed when they ship, so
 * each customer's list only grows. The user's field is declared ListMultimap (not a Collection
 * or Map), and the lists are values of the multimap's internal HashMap.
 *
 * Expected:      LEAK
 * Library:       com.google.guava:guava 33.8.0-jre
 * Growing node:  the customers' order lists: INSTANCE_FIELD corpus.libs.GuavaMultimapLeak.open
 *                (declared ListMultimap, final) -> com.google.common.collect.ArrayListMultimap
 *                  -> INSTANCE_FIELD AbstractMapBasedMultimap.map -> java.util.HashMap (4 keys)
 *                  => java.util.ArrayList (4, one node) => GuavaMultimapLeak$Order
 * Growth:        +1 Order per loop (3 objects: Order, id String + byte[]), one of the 4 lists
 *                in turn (AbstractMapBasedMultimap.totalSize +1)
 * Growing call:  corpus.libs.GuavaMultimapLeak.run(GuavaMultimapLeak.java:48)
 *                  (into ArrayListMultimap.put -> AbstractMapBasedMultimap.put -> ArrayList.add)
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 1 in 3 of 3; node ARRAY_ENTRY HashMap.[x] -> ArrayList (the 4 lists
 *                under AbstractMapBasedMultimap.map, reached from the scenario thread's
 *                ScenarioThread.scenario), children at loops 3, 7, 15, 31, 124, 496, 1000: 3, 7,
 *                15, 31, 124, 496, 1000 Orders. Attribution (all 3): attributed, calls to add() (by
 *                docs/attribution.md's order a container watch on the map values; the JSON does not
 *                name the recorder), 1 stack (4 calls):
 *                AbstractMapBasedMultimap.put(AbstractMapBasedMultimap.java:205) <
 *                AbstractListMultimap.put(AbstractListMultimap.java:121) <
 *                GuavaMultimapLeak.run(GuavaMultimapLeak.java:48) = the GROWS line
 */
package corpus.libs;

import com.google.common.collect.ArrayListMultimap;
import com.google.common.collect.ListMultimap;

public class GuavaMultimapLeak implements Runnable {
    /** An order of a customer. */
    record Order(String id, long cents) {}

    private static final String[] CUSTOMERS = {"acme", "globex", "initech", "umbrella"};

    private final ListMultimap<String, Order> open = ArrayListMultimap.create();

    private int loop;

    @Override
    public void run() {
        loop++;
        String customer = CUSTOMERS[loop % CUSTOMERS.length];
        Order order = new Order("order-" + loop, 100L * loop);
        open.put(customer, order); // GROWS
        // Bug: open.remove(customer, order) is never called when the order ships.
    }
}
