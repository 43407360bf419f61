/*
 * LiveObjects: benchmark scenario. Its constructor builds a retained heap of about N live
 * objects, N = system property heapgrowth.bench.objects (default 1,000,000), shaped like an
 * ordinary application's data: a HashMap<Integer, Customer> of N / 12 customers, each with
 *
 *   objects (12 per customer)              references (28 per customer: 2.33 per object)
 *   Integer key                            table slot -> HashMap$Node             1
 *   HashMap$Node                           Node.key, Node.value                   2
 *   Customer                               name, address, orders, segment,
 *                                            referrer, lastOrder                  6
 *   String name + its byte[]               String.value                           1
 *   Address (strings from shared pools)    city, country, postcode                3
 *   ArrayList orders + its Object[2]       elementData + 2 elements               3
 *   2 Order + 2 long[2] line amounts       per order: customer, shipTo, status,
 *                                            channel, currency, lineAmountsCents  12
 *
 * References count non-null reference fields and object-array elements, as a heap dump's
 * graph has them; a JVMTI FollowReferences walk also reports one class edge per object
 * (3.33 per object). Many references point to shared objects (enum constants, pooled strings)
 * or back to objects already seen (Order.customer, Order.shipTo, Customer.referrer is
 * customer id / 2), as in real heaps.
 *
 * Formula: live objects = 12 * floor(N / 12) + 1 table + about 215 fixed (the map, pools,
 * enums, the RECENT list) + the JVM's own live objects at start-up.
 * Measured (JDK 17.0.15, 2 cores; jcmd GC.class_histogram and jmap -histo:live on the live JVM,
 * then a live heap dump (jcmd GC.heap_dump) whose records were counted):
 *   N = 1,000,000: 83,333 customers, built in 0.13 s. Histogram total 1,032,876 objects,
 *     33.3 MB (999,996 built + about 32,900 of the JVM and a minimal driver; the histogram also
 *     counts the 1,520 java.lang.Class objects, which a dump holds as class records).
 *     Dump: 54 MB, 1,031,359 objects, 2,384,698 non-null references: 2.31 per object
 *     (3.31 counting one class edge per object, as a JVMTI FollowReferences walk does).
 *   N = 5,000,000: 416,666 customers, built in 0.8 s. Histogram total 5,033,073 objects,
 *     162 MB. Dump: 259 MB, 5,031,556 objects, 11,718,722 references: 2.33 per object.
 *   N = 12 (one customer; the baseline): histogram total 33,006 objects.
 *
 * Each run() adds 5 Orders with their long[] (10 objects) to the static list RECENT, a small
 * leak for the analysis to find: STATIC_FIELD corpus.bench.LiveObjects.RECENT
 *   -> java.util.ArrayList, +5 corpus.bench.Order per loop (static final ArrayList: a field
 *   proxy cannot watch it). Growing call: corpus.bench.LiveObjects.run(LiveObjects.java:112).
 */
package corpus.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class LiveObjects implements Runnable {
    /** System property with the number of live objects to build. */
    public static final String OBJECTS_PROPERTY = "heapgrowth.bench.objects";
    public static final long DEFAULT_OBJECTS = 1_000_000L;
    /** Objects retained per customer (see the table above). */
    public static final int OBJECTS_PER_CUSTOMER = 12;
    /** Orders (each with its long[]) added to RECENT per loop. */
    /**
     * Orders each run() keeps: system property heapgrowth.bench.ordersPerLoop, default 5; 0 makes
     * the scenario clean (the whole-run benchmark's big clean heap).
     */
    public static final int ORDERS_PER_LOOP = Integer.getInteger("heapgrowth.bench.ordersPerLoop", 5);

    private static final int FIRST_ID = 1_000;
    private static final String[] CITIES = {"Lyon", "Porto", "Leeds", "Graz", "Turku", "Gdansk"};
    private static final String[] COUNTRIES = {"FR", "PT", "GB", "AT", "FI", "PL"};
    private static final String[] CURRENCIES = {"EUR", "GBP", "PLN"};
    private static final String[] POSTCODES = new String[100];

    static {
        for (int i = 0; i < POSTCODES.length; i++) {
            POSTCODES[i] = String.format("%05d", 10_000 + 97 * i);
        }
    }

    private static final List<Order> RECENT = new ArrayList<>();

    private final Map<Integer, Customer> customers;
    private final int customerCount;
    private long nextOrderId = 1;
    private int loop;

    public LiveObjects() {
        long objects = Long.getLong(OBJECTS_PROPERTY, DEFAULT_OBJECTS);
        customerCount = (int) Math.max(1, objects / OBJECTS_PER_CUSTOMER);
        customers = new HashMap<>((int) (customerCount / 0.75f) + 1);
        Customer.Segment[] segments = Customer.Segment.values();
        for (int i = 0; i < customerCount; i++) {
            int id = FIRST_ID + i;
            Customer referrer = i == 0 ? null : customers.get(FIRST_ID + i / 2);
            Address address = new Address(CITIES[i % CITIES.length],
                    COUNTRIES[i % COUNTRIES.length], POSTCODES[i % POSTCODES.length]);
            Customer customer = new Customer(id, "customer-" + id, address,
                    segments[i % segments.length], referrer, 2);
            customer.addOrder(newOrder(customer));
            customer.addOrder(newOrder(customer));
            customers.put(id, customer);
        }
        if (customers.size() != customerCount) {
            throw new IllegalStateException("built " + customers.size() + " customers");
        }
    }

    private Order newOrder(Customer customer) {
        long id = nextOrderId++;
        Order.Status[] statuses = Order.Status.values();
        Order.Channel[] channels = Order.Channel.values();
        long[] lines = {100 + id % 900, 250 + id % 400};
        return new Order(id, customer, statuses[(int) (id % statuses.length)],
                channels[(int) (id % channels.length)],
                CURRENCIES[(int) (id % CURRENCIES.length)], lines);
    }

    @Override
    public void run() {
        loop++;
        Customer customer = customers.get(FIRST_ID + loop % customerCount);
        for (int i = 0; i < ORDERS_PER_LOOP; i++) {
            RECENT.add(newOrder(customer)); // GROWS
        }
    }

    public int customerCount() {
        return customerCount;
    }
}
