/*
 * ConcreteTypeFieldLeak: a static field declared with the concrete type ArrayList<String> (not
 * the List interface) gets one distinct String per loop.
 *
 * Expected:      LEAK
 * Growing field: STATIC_FIELD corpus.leaks.ConcreteTypeFieldLeak.names -> java.util.ArrayList
 * Growth:        +1 java.lang.String per loop (2 objects per loop: the String and its byte[])
 * Growing call:  corpus.leaks.ConcreteTypeFieldLeak.run(ConcreteTypeFieldLeak.java:24)
 * Shark:         reported, but its attribution cannot swap in a proxy (the field's declared type
 *                is a class, not an interface): NotAttributed
 */
package corpus.leaks;

import java.util.ArrayList;

public class ConcreteTypeFieldLeak implements Runnable {
    private static ArrayList<String> names = new ArrayList<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        names.add("customer-" + loop); // GROWS
    }
}
