package com.example.cart;

import java.util.HashMap;
import java.util.Map;

/** One loop: price a basket and throw it away. Nothing outlives the loop. */
public final class CheckoutOnlyScenario implements Runnable {
    @Override
    public void run() {
        Map<String, Integer> basket = new HashMap<>();
        for (int i = 0; i < 100; i++) {
            basket.put("sku-" + i, i);
        }
        basket.clear();
    }
}
