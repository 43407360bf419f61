/*
 * ServiceHeap: benchmark scenario shaped like a web service's heap rather than like one big
 * map of small records (LiveObjects). Its constructor builds about N live objects, N = system
 * property heapgrowth.bench.objects (default 1,000,000):
 *
 *   catalog (15 % of N)   a tree of 585 categories (root, 8, 64, 512: parent links, child
 *                         lists, a label map each); products in HashMap<String, Product> by
 *                         SKU and in HashMap<Category, ArrayList<Product>> by category (a map
 *                         of lists); each product: sku and name strings, a boxed Long price, an
 *                         ArrayList of pooled tags, a HashMap<String, Object> of attributes
 *                         (pooled strings, a boxed Integer, an int[], a shared supplier)
 *   users (25 % of N)     HashMap<Long, User>: email and display name strings, a profile
 *                         HashMap, a HashSet of roles, and a manager (users form a 3-ary tree of
 *                         managers about 9 deep)
 *   sessions (58 % of N)  ConcurrentHashMap<String, Session>, each with boxed Long times, an
 *                         attributes HashMap<String, Object> holding a nested prefs HashMap, a
 *                         cart (ArrayList of 2 orders, each an ArrayList of 3 lines pointing at
 *                         products: session -> order -> line -> product -> category -> parent
 *                         ...), a java.util.LinkedList of its last 6 events, and a hand-made
 *                         linked chain of 4 audit entries
 *   cache (2 % of N)      a LinkedHashMap LRU of rendered pages (String -> byte[256]), full from
 *                         the start: bounded, it only churns
 *
 * Per-object counts (ServiceHeap$Product and its strings, boxes and map nodes, ...) are in
 * the OBJECTS_PER_* constants below; with them the built heap comes within a few percent of N.
 * Measured (JDK 17.0.15, 2 cores): N = 1,000,000: 8,823 products, 13,157 users, 6,666
 * sessions; jmap -histo:live total 1,034,284 objects (32.8 MB), of which about 33,000 are the
 * JVM's; the live dump 52.7 MB with 1,035,792 objects. Most numerous: HashMap$Node 192,421,
 * byte[] 142,042, String 136,950, Long 128,892, HashMap 55,992 (and as many tables), Event,
 * OrderLine and LinkedList$Node 39,996 each, Object[] 31,129, ArrayList 29,927.
 * Everything is deterministic (indices and fixed arithmetic, no Random, no clock).
 *
 * Each run() serves REQUESTS_PER_LOOP (20) requests: each puts a RequestContext (a request id
 * string, a boxed start time, a headers HashMap) into the in-flight map, touches a session
 * (replaces its last page, appends an event and drops the oldest, churns the prefs), renders a
 * page into the LRU cache (evicting the eldest), and removes its context again, except the
 * first heapgrowth.bench.requestsKeptPerLoop (default 3) requests of the loop, whose contexts
 * are never removed (a request whose error path skipped the cleanup). 0 makes it clean.
 *
 * Expected: LEAK (default), CLEAN with -Dheapgrowth.bench.requestsKeptPerLoop=0.
 * Growing node: ... INSTANCE_FIELD corpus.bench.ServiceHeap.inFlight -> java.util.HashMap
 *   => corpus.bench.ServiceHeap$RequestContext, +3 per loop (11 objects each, with its map
 *   node: the context, its id string, a Long, the headers map with 2 nodes and a path string).
 * Growing call: corpus.bench.ServiceHeap.serve(ServiceHeap.java:395).
 */
package corpus.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

public class ServiceHeap implements Runnable {
    /** System property with the number of live objects to build (as LiveObjects'). */
    public static final String OBJECTS_PROPERTY = "heapgrowth.bench.objects";
    public static final long DEFAULT_OBJECTS = 1_000_000L;
    /** Requests per loop whose context is never removed: the leak; 0 makes the scenario clean. */
    public static final int REQUESTS_KEPT_PER_LOOP =
            Integer.getInteger("heapgrowth.bench.requestsKeptPerLoop", 3);
    /** Requests served per run(). */
    public static final int REQUESTS_PER_LOOP = 20;

    // Objects each part adds, counted from the code below (objects of the JDK's collections
    // included: a HashMap is the map, its table and a node per entry).
    /** Product, sku and name (String + byte[] each), Long price, tags list and its array,
     *  attributes map, table, 4 nodes, boxed weight, int[] dimensions, by-SKU node. */
    static final int OBJECTS_PER_PRODUCT = 17;
    /** User, Long key (also its id), map node, email and name strings, profile map (map,
     *  table, 3 nodes, phone string), roles set (set, map, table, 2 nodes). */
    static final int OBJECTS_PER_USER = 19;
    /** Session, map node, id string, 2 Longs, attributes (map, table, 5 nodes, Integer, page
     *  string, token string, prefs map: map, table, 3 nodes, Integer), cart (list, array, 2
     *  orders: order, Long, list, array, 3 lines of line + Long, every other one a metadata
     *  map of map, table, 2 nodes, string), events (list, 6 nodes, 6 events of event, Long,
     *  string), 4 audit entries. */
    static final int OBJECTS_PER_SESSION = 87;
    /** Cache entry, key string, byte[] page. */
    static final int OBJECTS_PER_CACHED_PAGE = 4;

    static final double CATALOG_SHARE = 0.15;
    static final double USER_SHARE = 0.25;
    static final double CACHE_SHARE = 0.02;
    static final int CATEGORY_FAN_OUT = 8;
    static final int CATEGORY_DEPTH = 3;
    static final int EVENTS_PER_SESSION = 6;
    static final int AUDIT_ENTRIES_PER_SESSION = 4;
    static final int ORDERS_PER_CART = 2;
    static final int LINES_PER_ORDER = 3;
    static final int PAGE_BYTES = 256;

    private static final String[] TAGS = new String[200];
    private static final String[] COLORS = {"red", "green", "blue", "black", "white", "grey"};
    private static final String[] LOCALES = {"en-GB", "fr-FR", "de-AT", "pt-PT", "fi-FI", "pl-PL"};
    private static final String[] CITIES = {"Lyon", "Porto", "Leeds", "Graz", "Turku", "Gdansk"};
    private static final String[] ROLES = {"customer", "staff", "admin", "support", "beta"};
    private static final String[] EVENT_TYPES = {"view", "search", "add", "remove", "checkout"};
    private static final String[] AUDIT_ACTIONS = {"login", "cart", "pay", "logout"};
    private static final String[] METHODS = {"GET", "POST", "PUT"};

    static {
        for (int i = 0; i < TAGS.length; i++) {
            TAGS[i] = "tag-" + i;
        }
    }

    enum OrderStatus { OPEN, PAID, SHIPPED }

    static final class Supplier {
        final String name;

        Supplier(String name) {
            this.name = name;
        }
    }

    static final class Category {
        final String name;
        final Category parent;
        final List<Category> children = new ArrayList<>(CATEGORY_FAN_OUT);
        final Map<String, String> labels = new HashMap<>(4);

        Category(String name, Category parent) {
            this.name = name;
            this.parent = parent;
            labels.put("en", name);
            labels.put("slug", name.toLowerCase());
        }
    }

    static final class Product {
        final String sku;
        final String name;
        final Category category;
        final Long priceCents;
        final List<String> tags = new ArrayList<>(3);
        final Map<String, Object> attributes = new HashMap<>(8);

        Product(String sku, String name, Category category, long priceCents) {
            this.sku = sku;
            this.name = name;
            this.category = category;
            this.priceCents = priceCents;
        }
    }

    static final class User {
        final Long id;
        final String email;
        final String displayName;
        final User manager;
        final Map<String, String> profile = new HashMap<>(4);
        final Set<String> roles = new HashSet<>(4);

        User(Long id, String email, String displayName, User manager) {
            this.id = id;
            this.email = email;
            this.displayName = displayName;
            this.manager = manager;
        }
    }

    static final class OrderLine {
        final Product product;
        final Integer quantity;
        final Long unitPriceCents;

        OrderLine(Product product, int quantity) {
            this.product = product;
            this.quantity = quantity;
            this.unitPriceCents = product.priceCents + 1_000_000L;
        }
    }

    static final class Order {
        final Long id;
        final OrderStatus status;
        final List<OrderLine> lines = new ArrayList<>(LINES_PER_ORDER);
        Map<String, String> metadata;

        Order(Long id, OrderStatus status) {
            this.id = id;
            this.status = status;
        }
    }

    static final class Event {
        final String type;
        final Long at;
        final String detail;

        Event(String type, long at, String detail) {
            this.type = type;
            this.at = at;
            this.detail = detail;
        }
    }

    static final class AuditEntry {
        final AuditEntry previous;
        final String action;
        final long at;
        final Object subject;

        AuditEntry(AuditEntry previous, String action, long at, Object subject) {
            this.previous = previous;
            this.action = action;
            this.at = at;
            this.subject = subject;
        }
    }

    static final class Session {
        final String id;
        final User user;
        final Long createdAt;
        Long lastSeen;
        final Map<String, Object> attributes = new HashMap<>(8);
        final List<Order> cart = new ArrayList<>(ORDERS_PER_CART);
        final LinkedList<Event> events = new LinkedList<>();
        AuditEntry audit;

        Session(String id, User user, long createdAt) {
            this.id = id;
            this.user = user;
            this.createdAt = createdAt;
            this.lastSeen = createdAt + 1;
        }
    }

    static final class RequestContext {
        final String requestId;
        final Long startedAt;
        final Session session;
        final Map<String, String> headers = new HashMap<>(4);

        RequestContext(String requestId, long startedAt, Session session) {
            this.requestId = requestId;
            this.startedAt = startedAt;
            this.session = session;
        }
    }

    /** An LRU cache of rendered pages: bounded, so it churns and never grows. */
    static final class PageCache extends LinkedHashMap<String, byte[]> {
        private static final long serialVersionUID = 1L;
        private final int capacity;

        PageCache(int capacity) {
            super(capacity * 2, 0.75f, true);
            this.capacity = capacity;
        }

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, byte[]> eldest) {
            return size() > capacity;
        }
    }

    private final List<Category> leafCategories = new ArrayList<>();
    private final Map<String, Product> productsBySku;
    private final Map<Category, List<Product>> productsByCategory = new HashMap<>();
    private final Product[] products;
    private final Map<Long, User> users;
    private final Map<String, Session> sessions;
    private final String[] sessionIds;
    private final PageCache pages;
    private final Map<String, RequestContext> inFlight = new HashMap<>();
    private long nextId = 1_000_000L;
    private int loop;

    public ServiceHeap() {
        long objects = Long.getLong(OBJECTS_PROPERTY, DEFAULT_OBJECTS);
        int productCount = (int) Math.max(1, objects * CATALOG_SHARE / OBJECTS_PER_PRODUCT);
        int userCount = (int) Math.max(1, objects * USER_SHARE / OBJECTS_PER_USER);
        int pageCount = (int) Math.max(1, objects * CACHE_SHARE / OBJECTS_PER_CACHED_PAGE);
        double sessionShare = 1 - CATALOG_SHARE - USER_SHARE - CACHE_SHARE;
        int sessionCount = (int) Math.max(1, objects * sessionShare / OBJECTS_PER_SESSION);

        buildCategories(new Category("all", null), 0);
        products = new Product[productCount];
        productsBySku = new HashMap<>((int) (productCount / 0.75f) + 1);
        Supplier[] suppliers = {new Supplier("Acme"), new Supplier("Globex"), new Supplier("Initech")};
        for (int i = 0; i < productCount; i++) {
            Category category = leafCategories.get(i % leafCategories.size());
            Product product = new Product("SKU-" + (100_000 + i), "Product number " + i, category,
                    1_000_000L + (i * 7919L) % 100_000);
            for (int t = 0; t < 3; t++) {
                product.tags.add(TAGS[(i * 31 + t * 7) % TAGS.length]);
            }
            product.attributes.put("color", COLORS[i % COLORS.length]);
            product.attributes.put("weightGrams", 1_000 + i % 50_000);
            product.attributes.put("dimensionsMm", new int[] {10 + i % 90, 20, 30});
            product.attributes.put("supplier", suppliers[i % suppliers.length]);
            products[i] = product;
            productsBySku.put(product.sku, product);
            productsByCategory.computeIfAbsent(category, c -> new ArrayList<>()).add(product);
        }

        users = new HashMap<>((int) (userCount / 0.75f) + 1);
        User[] byIndex = new User[userCount];
        for (int i = 0; i < userCount; i++) {
            Long id = 5_000_000L + i;
            User manager = i == 0 ? null : byIndex[(i - 1) / 3];
            User user = new User(id, "user" + i + "@example.com", "User " + i, manager);
            user.profile.put("city", CITIES[i % CITIES.length]);
            user.profile.put("locale", LOCALES[i % LOCALES.length]);
            user.profile.put("phone", "+44 20 " + (7_000_000 + i));
            user.roles.add(ROLES[0]);
            user.roles.add(ROLES[1 + i % (ROLES.length - 1)]);
            byIndex[i] = user;
            users.put(id, user);
        }

        sessions = new ConcurrentHashMap<>((int) (sessionCount / 0.75f) + 1);
        sessionIds = new String[sessionCount];
        for (int i = 0; i < sessionCount; i++) {
            Session session = newSession(i, byIndex[(int) ((i * 2_654_435_761L) % userCount)]);
            sessionIds[i] = session.id;
            sessions.put(session.id, session);
        }

        pages = new PageCache(pageCount);
        for (int i = 0; i < pageCount; i++) {
            pages.put("/page/" + i, new byte[PAGE_BYTES]);
        }
    }

    private void buildCategories(Category category, int depth) {
        if (depth == CATEGORY_DEPTH) {
            leafCategories.add(category);
            return;
        }
        for (int i = 0; i < CATEGORY_FAN_OUT; i++) {
            Category child = new Category(category.name + "/" + i, category);
            category.children.add(child);
            buildCategories(child, depth + 1);
        }
    }

    private Session newSession(int index, User user) {
        long created = 1_700_000_000_000L + index * 1_000L;
        Session session = new Session("sess-" + Long.toHexString(created * 31 + index), user, created);
        session.attributes.put("locale", LOCALES[index % LOCALES.length]);
        session.attributes.put("visits", 1_000 + index);
        session.attributes.put("lastPage", "/products/" + index);
        session.attributes.put("csrf", Long.toHexString(created ^ 0x5DEECE66DL));
        Map<String, Object> prefs = new HashMap<>(4);
        prefs.put("darkMode", index % 2 == 0);
        prefs.put("pageSize", 1_000 + index % 100);
        prefs.put("currency", index % 3 == 0 ? "EUR" : "GBP");
        session.attributes.put("prefs", prefs);
        for (int o = 0; o < ORDERS_PER_CART; o++) {
            Order order = new Order(nextId++, OrderStatus.values()[(index + o) % 3]);
            for (int l = 0; l < LINES_PER_ORDER; l++) {
                Product product = products[(int) ((index * 7L + o * 3 + l * 11) % products.length)];
                order.lines.add(new OrderLine(product, 1 + l));
            }
            if (o % 2 == 0) {
                order.metadata = new HashMap<>(4);
                order.metadata.put("channel", "web");
                order.metadata.put("coupon", "C" + (index + o));
            }
            session.cart.add(order);
        }
        for (int e = 0; e < EVENTS_PER_SESSION; e++) {
            session.events.addLast(new Event(EVENT_TYPES[e % EVENT_TYPES.length], created + e,
                    "event " + e + " of " + index));
        }
        for (int a = 0; a < AUDIT_ENTRIES_PER_SESSION; a++) {
            session.audit = new AuditEntry(session.audit, AUDIT_ACTIONS[a], created + a,
                    a % 2 == 0 ? session.user : session.cart.get(0));
        }
        return session;
    }

    @Override
    public void run() {
        loop++;
        for (int r = 0; r < REQUESTS_PER_LOOP; r++) {
            serve(loop * REQUESTS_PER_LOOP + r, r < REQUESTS_KEPT_PER_LOOP);
        }
    }

    private void serve(long request, boolean skipsCleanup) {
        Session session = sessions.get(sessionIds[(int) (request % sessionIds.length)]);
        RequestContext context = new RequestContext("req-" + request, 1_800_000_000_000L + request,
                session);
        context.headers.put("method", METHODS[(int) (request % METHODS.length)]);
        context.headers.put("path", "/page/" + request % 5_000);
        inFlight.put(context.requestId, context); // GROWS

        session.lastSeen = context.startedAt;
        session.attributes.put("lastPage", context.headers.get("path"));
        @SuppressWarnings("unchecked")
        Map<String, Object> prefs = (Map<String, Object>) session.attributes.get("prefs");
        prefs.put("pageSize", 1_000 + (int) (request % 100));
        session.events.addLast(new Event(EVENT_TYPES[(int) (request % EVENT_TYPES.length)],
                context.startedAt, "request " + request));
        session.events.removeFirst();
        Product product = products[(int) (request % products.length)];
        byte[] page = new byte[PAGE_BYTES];
        page[0] = (byte) product.name.length();
        pages.put(context.headers.get("path"), page);

        if (!skipsCleanup) {
            inFlight.remove(context.requestId);
        }
    }

    public int sessionCount() {
        return sessions.size();
    }

    public int productCount() {
        return productsBySku.size();
    }
}
