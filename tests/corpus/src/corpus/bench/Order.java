package corpus.bench;

/** An order: who placed it, where it goes, and the amounts of its lines. */
final class Order {
    enum Status { NEW, PAID, SHIPPED, DELIVERED }

    enum Channel { WEB, MOBILE, STORE }

    private final long id;
    private final Customer customer;
    private final Address shipTo;
    private final Status status;
    private final Channel channel;
    private final String currency;
    private final long[] lineAmountsCents;

    Order(long id, Customer customer, Status status, Channel channel, String currency,
            long[] lineAmountsCents) {
        this.id = id;
        this.customer = customer;
        this.shipTo = customer.address();
        this.status = status;
        this.channel = channel;
        this.currency = currency;
        this.lineAmountsCents = lineAmountsCents;
    }

    long id() {
        return id;
    }

    Customer customer() {
        return customer;
    }

    Address shipTo() {
        return shipTo;
    }

    Status status() {
        return status;
    }

    Channel channel() {
        return channel;
    }

    String currency() {
        return currency;
    }

    long totalCents() {
        long total = 0;
        for (long amount : lineAmountsCents) {
            total += amount;
        }
        return total;
    }
}
