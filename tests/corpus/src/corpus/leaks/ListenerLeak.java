/*
 * ListenerLeak: every loop opens a new Screen, which registers an anonymous listener on the
 * application-wide EventBus; the screen is dropped but never closed, so the listener (and the
 * screen it captures) stays registered.
 *
 * Expected:      LEAK
 * Growing field: INSTANCE_FIELD corpus.app.EventBus.listeners
 *                  -> java.util.concurrent.CopyOnWriteArrayList (declared List, not final),
 *                reached through STATIC_FIELD corpus.app.EventBus.INSTANCE -> corpus.app.EventBus
 *                (the list's array field is replaced on every add: CopyOnWriteArrayList.array)
 * Growth:        +1 corpus.app.Screen$1 per loop, which retains its Screen (this$0), the
 *                screen's title String + byte[] and its int[16] layout
 *                (5 objects per loop)
 * Growing call:  corpus.app.EventBus.register(EventBus.java:20)
 *                  via corpus.app.Screen.open(Screen.java:26)
 *                  via corpus.leaks.ListenerLeak.run(ListenerLeak.java:31)
 * Shark:         reported (attribution needs EventBus.INSTANCE named as the field owner)
 */
package corpus.leaks;

import corpus.app.EventBus;
import corpus.app.Screen;

public class ListenerLeak implements Runnable {
    private int loop;

    @Override
    public void run() {
        loop++;
        Screen screen = new Screen("orders-" + loop);
        screen.open(); // VIA (Screen.open -> EventBus.register grows)
        EventBus.getInstance().publish("cart-updated");
        // The user navigates away here; screen.close() is never called.
    }
}
