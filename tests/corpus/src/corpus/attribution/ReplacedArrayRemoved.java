/*
 * ReplacedArrayRemoved: clean twin of ReplacedArrayLeak. The same hand-made copy-on-write
 * listener list (Listener[] in slot 0 of a final Listener[][]); each alarm is removed again in
 * the same loop, so slot 0 holds an empty array between loops (a new one every loop).
 *
 * Expected:      CLEAN
 * Growing node:  none: ListenerList.slot -> Listener[][] -> [x] -> Listener[0] between loops
 * Growth:        0
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 0 in 3 of 3, nothing reported, nothing leveled off (31 loops, 4
 *                snapshots)
 */
package corpus.attribution;

import corpus.app.Listener;
import java.util.Arrays;

public class ReplacedArrayRemoved implements Runnable {
    /** Copy-on-write by hand: the current listeners are the array in slot[0]. */
    static final class ListenerList {
        private final Listener[][] slot = {new Listener[0]};

        synchronized void add(Listener listener) {
            Listener[] current = slot[0];
            Listener[] grown = Arrays.copyOf(current, current.length + 1);
            grown[current.length] = listener;
            slot[0] = grown;
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
        Alarm alarm = new Alarm("alarm-" + loop);
        alarms.add(alarm);
        alarms.fire("alarm-" + (loop - 1));
        alarms.remove(alarm);
    }
}
