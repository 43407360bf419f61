/*
 * LookupHiddenClassDropped: the clean twin of LookupDefinedClassLeak. The class generated per call
 * is a hidden class (Lookup.defineHiddenClass, not strongly held by its loader) that nothing keeps:
 * it is unloaded at the next full collection.
 *
 * Expected:      CLEAN
 * Growing node:  none
 * Growth:        0 (one hidden class per loop, all garbage)
 * Measured:      heapgrowth at 99a8dca + the class-root recorder (issue 32), default schedule, JSON, JDK 17,
 *                3 runs: exit 0 in 3 of 3, "no growing objects after 31 loops in 4 snapshots"
 */
package corpus.attribution;

import corpus.app.LookupGenerator;

public class LookupHiddenClassDropped implements Runnable {
    private int loop;

    @Override
    public void run() {
        loop++;
        try {
            LookupGenerator.defineHidden();
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
