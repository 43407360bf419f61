/*
 * GuavaMultimapShipped: clean twin of GuavaMultimapLeak. The same ArrayListMultimap of open
 * orders per customer; each order is removed when it ships, in the same loop (the customer's
 * empty list is then dropped from the map).
 *
 * Expected:      CLEAN
 * Library:       com.google.guava:guava 33.8.0-jre
 * Growing node:  none: AbstractMapBasedMultimap.map -> HashMap is empty between loops
 * Growth:        0
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 0 in 3 of 3, nothing reported, nothing leveled off (63 loops, 5
 *                snapshots)
 */
package corpus.libs;

import com.google.common.collect.ArrayListMultimap;
import com.google.common.collect.ListMultimap;

public class GuavaMultimapShipped implements Runnable {
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
        open.put(customer, order);
        open.remove(customer, order);
    }
}
