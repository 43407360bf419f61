/*
 * WeakListenersNeverPurged: a price feed keeps its listeners as WeakReferences so that a
 * screen that goes away is not kept alive, and registers a new screen (a lambda) every loop.
 * The screens die with their loop and the collector clears their references, but the list
 * never removes a cleared reference: it gains an empty WeakReference per loop, each 32 bytes.
 *
 * Expected:      CLEAN (not reported as growing): listed once as "Awaiting cleanup" at the
 *                list, with the count of cleared references at each snapshot (issue 29:
 *                references the collector cleared are garbage that waits for its owner's
 *                cleanup, never growth, even from an owner that never cleans up)
 * Watched node:  INSTANCE_FIELD corpus.clean.WeakListenersNeverPurged.listeners -> ArrayList
 *                => WeakReference (referent null)
 * Growth:        +1 cleared WeakReference per loop; 3, 6, 14, 30 at loops 3, 7, 15, 31 (the
 *                last loop's screen is not yet collected at a snapshot after loop 3)
 * Shark:         not reported
 */
package corpus.clean;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

public class WeakListenersNeverPurged implements Runnable {
    interface PriceListener {
        void priceChanged(int cents);
    }

    private final List<WeakReference<PriceListener>> listeners = new ArrayList<>();

    private int loop;
    private int notified;

    @Override
    public void run() {
        loop++;
        PriceListener screen = cents -> notified += cents;
        listeners.add(new WeakReference<>(screen));
        for (WeakReference<PriceListener> reference : listeners) {
            PriceListener listener = reference.get();
            if (listener != null) {
                listener.priceChanged(loop);
            }
        }
    }
}
