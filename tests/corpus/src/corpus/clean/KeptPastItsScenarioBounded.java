/*
 * KeptPastItsScenarioBounded: the clean twin of corpus.leaks.KeptPastItsScenarioLeak. The
 * static list keeps the last 20 items only; each instance still stays in the JVM's system
 * properties until the next run's fifth loop, with its loader and list.
 *
 * Expected:      CLEAN, in every run
 */
package corpus.clean;

import corpus.app.Item;
import java.util.ArrayList;
import java.util.List;

public class KeptPastItsScenarioBounded implements Runnable {
    private static final String KEPT = "corpus.keptPastItsScenarioBounded";
    private static final int KEPT_ITEMS = 20;
    private static final List<Item> items = new ArrayList<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        items.add(new Item("sku-" + loop, loop));
        if (items.size() > KEPT_ITEMS) {
            items.remove(0);
        }
        if (loop == 5) {
            System.getProperties().put(KEPT, this);
        }
    }
}
