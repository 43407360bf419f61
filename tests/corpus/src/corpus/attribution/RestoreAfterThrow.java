/*
 * RestoreAfterThrow: two static lists, each gaining one Item per loop; the scenario checks
 * itself that attribution gives its fields back. On the second loop in which it finds one of
 * its fields holding a recording proxy (java.lang.reflect.Proxy), it throws once, after its adds;
 * on every loop it checks that a field that held a proxy before and no longer does holds the
 * original list again, with every item added so far, and throws otherwise.
 *
 * Expected:      LEAK, two growing nodes. The first attributed throws during its attribution
 *                loops (not attributed, field restored); the second is attributed, which proves
 *                that the first field came back with every object (its loops would throw
 *                otherwise).
 * Growing field: STATIC_FIELD corpus.attribution.RestoreAfterThrow.first -> java.util.ArrayList
 *                STATIC_FIELD corpus.attribution.RestoreAfterThrow.second -> java.util.ArrayList
 * Growth:        +1 corpus.app.Item per loop in each (3 objects per loop each)
 * Growing call:  corpus.attribution.RestoreAfterThrow.run(RestoreAfterThrow.java:43) (first),
 *                corpus.attribution.RestoreAfterThrow.run(RestoreAfterThrow.java:44) (second)
 */
package corpus.attribution;

import corpus.app.Item;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

public class RestoreAfterThrow implements Runnable {
    private static List<Item> first = new ArrayList<>();
    private static List<Item> second = new ArrayList<>();
    private static final int FIRST_ID = System.identityHashCode(first);
    private static final int SECOND_ID = System.identityHashCode(second);

    private int loop;
    private int proxiedLoops;
    private boolean thrown;
    private boolean firstProxied;
    private boolean secondProxied;

    @Override
    public void run() {
        loop++;
        firstProxied = check("first", first, FIRST_ID, firstProxied);
        secondProxied = check("second", second, SECOND_ID, secondProxied);
        boolean proxied = Proxy.isProxyClass(first.getClass()) || Proxy.isProxyClass(second.getClass());
        first.add(new Item("first-" + loop, loop)); // GROWS
        second.add(new Item("second-" + loop, loop)); // GROWS
        if (proxied && ++proxiedLoops == 2 && !thrown) {
            thrown = true;
            throw new IllegalStateException("thrown on purpose while a field is watched"); // THROWS
        }
    }

    /** Whether {@code list} is a proxy now or was one before; throws if it came back wrong. */
    private boolean check(String name, List<Item> list, int originalId, boolean wasProxied) {
        if (Proxy.isProxyClass(list.getClass())) {
            return true;
        }
        if (wasProxied) {
            if (System.identityHashCode(list) != originalId) {
                throw new IllegalStateException(name + " does not hold its original list after attribution");
            }
            if (list.size() != loop - 1) {
                throw new IllegalStateException(name + " holds " + list.size() + " items, expected " + (loop - 1));
            }
        }
        return wasProxied;
    }
}
