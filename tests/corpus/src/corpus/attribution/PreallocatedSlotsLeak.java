/*
 * PreallocatedSlotsLeak: a ring of slots allocated once (a static final Object[4096]) that is
 * filled one slot per loop and never cleared. No collection, and no field is ever written after
 * the class initialiser: the only trace of the growing code is where the new objects come from.
 *
 * Expected:      LEAK
 * Growing field: STATIC_FIELD corpus.attribution.PreallocatedSlotsLeak.SLOTS -> java.lang.Object[]
 * Growth:        +1 corpus.app.Item per loop in the array (3 objects per loop with the sku
 *                String and its byte[])
 * Growing call:  corpus.attribution.PreallocatedSlotsLeak.run(PreallocatedSlotsLeak.java:28)
 *                (the allocation of the Item, stored into the array on the same line)
 * Attribution:   allocation sampling ("allocated at"): neither a proxy (no collection) nor a
 *                field watch (the final field is never written) applies
 */
package corpus.attribution;

import corpus.app.Item;

public class PreallocatedSlotsLeak implements Runnable {
    private static final Object[] SLOTS = new Object[4096];
    private static int used;

    private int loop;

    @Override
    public void run() {
        loop++;
        SLOTS[used++] = new Item("slot-" + loop, loop); // GROWS
    }
}
