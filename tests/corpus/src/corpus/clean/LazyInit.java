/*
 * LazyInit: the first loop builds a 1000-entry tax table held in a static field
 * (corpus.app.TaxTable.instance, initialized on first use); later loops only read it.
 *
 * Expected:      CLEAN (not reported)
 * Watched field: STATIC_FIELD corpus.app.TaxTable.instance -> corpus.app.TaxTable, with
 *                INSTANCE_FIELD TaxTable.rates -> TaxTable$Rate[1000] (3001 objects: 1000
 *                Rate, 1000 region Strings and their byte[], plus the array), all created in
 *                loop 1, during the warm-up; unchanged afterwards
 * Shark:         not reported (the table exists, complete, at the first dump)
 */
package corpus.clean;

import corpus.app.TaxTable;

public class LazyInit implements Runnable {
    private long totalBasisPoints;
    private int loop;

    @Override
    public void run() {
        loop++;
        totalBasisPoints += TaxTable.get().rate(loop).basisPoints();
    }
}
