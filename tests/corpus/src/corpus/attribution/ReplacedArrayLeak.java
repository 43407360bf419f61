/*
 * ReplacedArrayLeak: a hand-made copy-on-write listener list. The listeners are an array that
 * add() replaces by Arrays.copyOf(current, n + 1) with the new listener in the last slot, and the
 * current array sits in slot 0 of a private final Listener[][] (a one-element holder, so readers
 * see the new array without a lock). No field is ever written: the holder field is final and
 * the array is published by an array store. Every loop a new alarm subscribes and none is ever
 * removed.
 *
 * Expected:      LEAK
 * Growing node:  STATIC_FIELD corpus.attribution.ReplacedArrayLeak.alarms
 *                  -> corpus.attribution.ReplacedArrayLeak$ListenerList
 *                  -> INSTANCE_FIELD ListenerList.slot -> corpus.app.Listener[][] (length 1)
 *                  -> ARRAY_ENTRY [x] -> corpus.app.Listener[] (a new array, length n, every loop)
 *                  => corpus.attribution.ReplacedArrayLeak$Alarm
 * Growth:        +1 Alarm per loop (3 objects: the alarm, its name String + byte[]), +1 slot;
 *                the Listener[] is replaced on every add
 * Growing call:  corpus.attribution.ReplacedArrayLeak$ListenerList.add(ReplacedArrayLeak.java:42)
 *                (the store into the new array), published at ReplacedArrayLeak.java:43
 *                (slot[0] = grown, an array store, no field write), via
 *                corpus.attribution.ReplacedArrayLeak.run(ReplacedArrayLeak.java:91)
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 1 in 3 of 3; node ARRAY_ENTRY Listener[][].[x] -> Listener[] (under
 *                ListenerList.slot), children at loops 3, 7, 15, 31, 124, 496, 1000: 3, 7, 15, 31,
 *                124, 496, 1000 Alarms. Attribution (all 3): not_attributed, "the node is reached
 *                through an array or collection entry and is neither a Collection nor a Map;
 *                allocation sampling saw no new object stay under the node during the attribution
 *                loops (the growth may happen in code the recorder does not see)"
 */
package corpus.attribution;

import corpus.app.Listener;
import java.util.Arrays;

public class ReplacedArrayLeak implements Runnable {
    /** Copy-on-write by hand: the current listeners are the array in slot[0]. */
    static final class ListenerList {
        private final Listener[][] slot = {new Listener[0]};

        synchronized void add(Listener listener) {
            Listener[] current = slot[0];
            Listener[] grown = Arrays.copyOf(current, current.length + 1); // GROWS (the copy that becomes the array)
            grown[current.length] = listener; // GROWS
            slot[0] = grown; // GROWS (publishes the new array)
        }

        synchronized void remove(Listener listener) {
            Listener[] current = slot[0];
            for (int i = 0; i < current.length; i++) {
                if (current[i] == listener) {
                    Listener[] shrunk = new Listener[current.length - 1];
                    System.arraycopy(current, 0, shrunk, 0, i);
                    System.arraycopy(current, i + 1, shrunk, i, current.length - i - 1);
                    slot[0] = shrunk;
                    return;
                }
            }
        }

        void fire(String topic) {
            for (Listener listener : slot[0]) {
                listener.onEvent(topic);
            }
        }
    }

    /** Rings when a price crosses its level; one per watch a user sets up. */
    static final class Alarm implements Listener {
        private final String name;
        private int rings;

        Alarm(String name) {
            this.name = name;
        }

        @Override
        public void onEvent(String topic) {
            if (topic.startsWith(name)) {
                rings++;
            }
        }
    }

    private static ListenerList alarms = new ListenerList();

    private int loop;

    @Override
    public void run() {
        loop++;
        Alarm alarm = new Alarm("alarm-" + loop); // ALLOCATED
        alarms.add(alarm); // VIA (ListenerList.add grows)
        alarms.fire("alarm-" + (loop - 1));
        // Bug: the watch is never taken down: alarms.remove(alarm) is not called.
    }
}
