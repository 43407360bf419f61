package corpus.app;

/** The states an order goes through. */
public enum Status {
    PENDING,
    PAID,
    SHIPPED,
    DELIVERED
}
