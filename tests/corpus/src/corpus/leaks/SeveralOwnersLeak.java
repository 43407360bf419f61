/*
 * SeveralOwnersLeak: the scenario owns three Registry objects of the same class (orders,
 * payments, shipping); every loop registers one entry in each, and nothing is ever removed.
 *
 * Expected:      LEAK
 * Growing node:  INSTANCE_FIELD corpus.app.Registry.entries -> java.util.ArrayList, one node
 *                holding the 3 lists (the 3 registries share one path: INSTANCE_FIELD
 *                corpus.leaks.SeveralOwnersLeak.registries -> java.util.ArrayList, then its
 *                elements, ARRAY_ENTRY [x] -> corpus.app.Registry, 3 objects)
 * Growth:        +3 corpus.app.Registry$Entry per loop, one per registry (9 objects per loop
 *                with each entry's key String and byte[]; +6 entries per dump of 2 loops)
 * Growing call:  corpus.app.Registry.register(Registry.java:35), 3 calls per loop
 *                  via corpus.leaks.SeveralOwnersLeak.run(SeveralOwnersLeak.java:37)
 * Shark:         reported (attribution needs all three Registry objects named as field owners)
 */
package corpus.leaks;

import corpus.app.Registry;
import java.util.ArrayList;
import java.util.List;

public class SeveralOwnersLeak implements Runnable {
    private final List<Registry> registries = new ArrayList<>();

    private int loop;

    public SeveralOwnersLeak() {
        registries.add(new Registry("orders"));
        registries.add(new Registry("payments"));
        registries.add(new Registry("shipping"));
    }

    @Override
    public void run() {
        loop++;
        for (Registry registry : registries) {
            registry.register(registry.name() + "-" + loop); // VIA (Registry.register grows)
        }
    }
}
