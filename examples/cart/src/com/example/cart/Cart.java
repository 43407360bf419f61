package com.example.cart;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A shopping cart that remembers every item ever added, in an audit trail nobody trims. */
public final class Cart {
    /** Shared by every cart: the leak. */
    private static final List<Item> AUDIT_TRAIL = new ArrayList<>();

    private final Map<String, Item> itemsBySku = new LinkedHashMap<>();

    public void add(Item item) {
        itemsBySku.put(item.sku(), item);
        AUDIT_TRAIL.add(item);
    }

    public void checkout() {
        itemsBySku.clear();
    }
}
