package com.example.cart;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.heapgrowth.junit.HeapGrowthTest;

class CartTest {
    private final Cart cart = new Cart();

    @HeapGrowthTest
    void openingAndClosingTheCartDoesNotLeak() {
        cart.open();
        cart.add("apple");
        cart.close();
    }

    @HeapGrowthTest(maxSnapshots = 4)
    void addingAndClearingItemsDoesNotLeak() {
        cart.add("pear");
        cart.add("plum");
        assertEquals(2, cart.size());
        cart.close();
    }

    // The same leak, accepted by an ignore rule of the test's own: it passes, and its report
    // lists the path as ignored with the reason.
    @HeapGrowthTest(ignore = "com.example.cart.Cart.AUDIT_TRAIL the audit trail is kept on purpose")
    void anAcceptedLeakPassesWithItsReason() {
        cart.open();
        cart.close();
    }

    // A loop that throws fails the test with the test's own exception, not a heapgrowth report.
    @HeapGrowthTest
    void anAssertionThatFailsInALoopFailsTheTest() {
        cart.add("fig");
        assertEquals(0, cart.size(), "the cart is empty");
    }
}
