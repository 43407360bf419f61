package com.example.cart;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.heapgrowth.junit.HeapGrowthTest;
import org.junit.platform.runner.JUnitPlatform;
import org.junit.runner.RunWith;

// Gradle 4.4.1 runs JUnit 4 only; this runner hands the class to the JUnit Platform.
@RunWith(JUnitPlatform.class)
public class CartTest {
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

    // A loop that throws fails the test with the test's own exception, not a heapgrowth report.
    @HeapGrowthTest
    void anAssertionThatFailsInALoopFailsTheTest() {
        cart.add("fig");
        assertEquals(0, cart.size(), "the cart is empty");
    }
}
