package com.example.cart;

/** A product line in a cart. */
public final class Item {
    private final String sku;
    private final int quantity;

    public Item(String sku, int quantity) {
        this.sku = sku;
        this.quantity = quantity;
    }

    public String sku() {
        return sku;
    }

    public int quantity() {
        return quantity;
    }
}
