/*
 * AlternatingClassesLeak: one basket list; odd loops (1, 3, 5, ...) add an Orange, even loops
 * (2, 4, 6, ...) add an Apple. The list gains one fruit per loop, forever.
 *
 * Expected:      LEAK
 * Growing field: STATIC_FIELD corpus.leaks.AlternatingClassesLeak.basket -> java.util.ArrayList
 *                (declared List, not final)
 * Growth:        +1 fruit per loop, alternating corpus.app.Orange and corpus.app.Apple
 *                (1 object per loop); per dump of 2 loops: +1 Apple and +1 Orange
 * Growing call:  corpus.leaks.AlternatingClassesLeak.run(AlternatingClassesLeak.java:33) (Apple)
 *                and AlternatingClassesLeak.java:35 (Orange)
 * Shark:         BLIND SPOT: children are keyed by target class, so the list has two children
 *                (-> Apple, -> Orange) that each gain 1 per dump, below the threshold of 2;
 *                the total (+2) crosses it but no single child does
 */
package corpus.leaks;

import corpus.app.Apple;
import corpus.app.Fruit;
import corpus.app.Orange;
import java.util.ArrayList;
import java.util.List;

public class AlternatingClassesLeak implements Runnable {
    private static List<Fruit> basket = new ArrayList<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        if (loop % 2 == 0) {
            basket.add(new Apple(loop)); // GROWS
        } else {
            basket.add(new Orange(loop)); // GROWS
        }
    }
}
