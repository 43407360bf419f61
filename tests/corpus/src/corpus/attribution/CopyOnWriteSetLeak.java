/*
 * CopyOnWriteSetLeak: a price ticker keeps its listeners in a CopyOnWriteArraySet held in a
 * private final field; every loop a new quote panel subscribes and never unsubscribes. The set's
 * CopyOnWriteArrayList replaces its array on every add (a field write inside the JDK, of
 * CopyOnWriteArrayList.array, done with a plain setArray), and the user's field is final and
 * never written.
 *
 * Expected:      LEAK
 * Growing node:  STATIC_FIELD corpus.attribution.CopyOnWriteSetLeak.ticker
 *                  -> corpus.attribution.CopyOnWriteSetLeak$Ticker
 *                  -> INSTANCE_FIELD Ticker.listeners -> java.util.concurrent.CopyOnWriteArraySet
 *                  -> INSTANCE_FIELD CopyOnWriteArraySet.al
 *                     -> java.util.concurrent.CopyOnWriteArrayList (array replaced each add)
 *                  => corpus.attribution.CopyOnWriteSetLeak$QuotePanel
 * Growth:        +1 QuotePanel per loop (3 objects: the panel, its name String + byte[]), +1
 *                array slot
 * Growing call:  corpus.attribution.CopyOnWriteSetLeak$Ticker.subscribe(CopyOnWriteSetLeak.java:39)
 *                  via corpus.attribution.CopyOnWriteSetLeak.run(CopyOnWriteSetLeak.java:76)
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 1 in 3 of 3; node INSTANCE_FIELD CopyOnWriteSetLeak$Ticker.listeners
 *                -> CopyOnWriteArraySet, children at loops 3, 7, 15, 31, 124, 496, 1000: 4, 8, 16,
 *                32, 125, 497, 1001 ([x] QuotePanel and the list's lock Object). Attribution (all
 *                3): attributed, allocated at, 1 stack (4 objects):
 *                CopyOnWriteSetLeak.run(CopyOnWriteSetLeak.java:75) (new QuotePanel), not the GROWS
 *                line (Ticker.subscribe, :39, appears in no frame)
 */
package corpus.attribution;

import corpus.app.Listener;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;

public class CopyOnWriteSetLeak implements Runnable {
    /** Publishes price ticks to its listeners. */
    static final class Ticker {
        private final Set<Listener> listeners = new CopyOnWriteArraySet<>();

        void subscribe(Listener listener) {
            listeners.add(listener); // GROWS
        }

        void unsubscribe(Listener listener) {
            listeners.remove(listener);
        }

        void tick(String symbol) {
            for (Listener listener : listeners) {
                listener.onEvent(symbol);
            }
        }
    }

    /** Shows the latest tick; one per opened panel. */
    static final class QuotePanel implements Listener {
        private final String name;
        private String last;

        QuotePanel(String name) {
            this.name = name;
        }

        @Override
        public void onEvent(String topic) {
            last = name + ": " + topic;
        }
    }

    private static Ticker ticker = new Ticker();

    private int loop;

    @Override
    public void run() {
        loop++;
        QuotePanel panel = new QuotePanel("panel-" + loop);
        ticker.subscribe(panel); // VIA (Ticker.subscribe grows)
        ticker.tick(loop % 2 == 0 ? "ACME" : "INITECH");
        // Bug: the panel never calls ticker.unsubscribe(panel) when it closes.
    }
}
