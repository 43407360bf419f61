package corpus.app;

/** A catalogue item: what carts, caches and lists in the corpus hold. */
public final class Item {
    private final String sku;
    private final long priceCents;

    public Item(String sku, long priceCents) {
        this.sku = sku;
        this.priceCents = priceCents;
    }

    public String sku() {
        return sku;
    }

    public long priceCents() {
        return priceCents;
    }

    @Override
    public String toString() {
        return sku + " @ " + priceCents;
    }
}
