package corpus.bench;

import java.util.ArrayList;
import java.util.List;

/** A customer with an address and a short order history. */
final class Customer {
    enum Segment { RETAIL, BUSINESS, STAFF }

    private final int id;
    private final String name;
    private final Address address;
    private final List<Order> orders;
    private final Segment segment;
    private final Customer referrer;
    private Order lastOrder;

    Customer(int id, String name, Address address, Segment segment, Customer referrer,
            int expectedOrders) {
        this.id = id;
        this.name = name;
        this.address = address;
        this.orders = new ArrayList<>(expectedOrders);
        this.segment = segment;
        this.referrer = referrer;
    }

    void addOrder(Order order) {
        orders.add(order);
        lastOrder = order;
    }

    int id() {
        return id;
    }

    String name() {
        return name;
    }

    Address address() {
        return address;
    }

    Segment segment() {
        return segment;
    }

    Customer referrer() {
        return referrer;
    }

    Order lastOrder() {
        return lastOrder;
    }

    int orderCount() {
        return orders.size();
    }
}
