/*
 * InstanceFieldLeak: the scenario instance owns a Cart; every loop adds an item with a new SKU,
 * and the cart's index (a LinkedHashMap) keeps them all.
 *
 * Expected:      LEAK
 * Growing field: INSTANCE_FIELD corpus.app.Cart.itemsById -> java.util.LinkedHashMap
 *                (declared as the interface Map, not final), reached through
 *                INSTANCE_FIELD corpus.leaks.InstanceFieldLeak.cart -> corpus.app.Cart
 * Growth:        +1 map entry per loop: a LinkedHashMap$Entry whose value is a corpus.app.Item
 *                (4 objects per loop: entry, Item, sku String, its byte[]; key = the sku String)
 * Growing call:  corpus.app.Cart.add(Cart.java:11)
 *                  via corpus.leaks.InstanceFieldLeak.run(InstanceFieldLeak.java:28)
 * Shark:         reported (attribution needs the Cart named as a field owner: instance field)
 */
package corpus.leaks;

import corpus.app.Cart;
import corpus.app.Item;

public class InstanceFieldLeak implements Runnable {
    private final Cart cart = new Cart();

    private int loop;

    @Override
    public void run() {
        loop++;
        cart.add(new Item("item-" + loop, 250L + loop)); // VIA (Cart.add grows)
    }
}
