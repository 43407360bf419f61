/*
 * CopyOnWriteSetUnsubscribed: clean twin of CopyOnWriteSetLeak. The same ticker and
 * CopyOnWriteArraySet of listeners; each quote panel unsubscribes when it closes, in the same
 * loop.
 *
 * Expected:      CLEAN
 * Growing node:  none: Ticker.listeners -> CopyOnWriteArraySet -> al -> CopyOnWriteArrayList,
 *                empty between loops
 * Growth:        0
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 0 in 3 of 3, nothing reported, nothing leveled off (31 loops, 4
 *                snapshots)
 */
package corpus.attribution;

import corpus.app.Listener;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;

public class CopyOnWriteSetUnsubscribed implements Runnable {
    /** Publishes price ticks to its listeners. */
    static final class Ticker {
        private final Set<Listener> listeners = new CopyOnWriteArraySet<>();

        void subscribe(Listener listener) {
            listeners.add(listener);
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
        ticker.subscribe(panel);
        ticker.tick(loop % 2 == 0 ? "ACME" : "INITECH");
        ticker.unsubscribe(panel);
    }
}
