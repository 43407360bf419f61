package com.example.cart;

/** One loop: open a cart, add two items, check out. Leaks two items per loop into Cart's audit trail. */
public final class CartScenario implements Runnable {
    private int order;

    @Override
    public void run() {
        Cart cart = new Cart();
        order++;
        cart.add(new Item("book-" + order, 1));
        cart.add(new Item("pen-" + order, 3));
        cart.checkout();
    }
}
