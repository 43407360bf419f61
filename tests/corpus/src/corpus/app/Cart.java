package corpus.app;

import java.util.LinkedHashMap;
import java.util.Map;

/** A shopping cart that indexes its items by SKU and never removes any. */
public class Cart {
    private Map<String, Item> itemsById = new LinkedHashMap<>();

    public void add(Item item) {
        itemsById.put(item.sku(), item); // GROWS
    }

    public Item find(String sku) {
        return itemsById.get(sku);
    }

    public int size() {
        return itemsById.size();
    }

    public long totalCents() {
        long total = 0;
        for (Item item : itemsById.values()) {
            total += item.priceCents();
        }
        return total;
    }
}
