/*
 * ChurnNoSurvivorClean: clean twin of ChurnBesideSurvivorLeak. The same 25,000 temporary log
 * lines and one event per loop into the same kind of journal, which is trimmed to its 8 newest
 * events after every record: every structure holds 8 entries from loop 8 on.
 *
 * Expected:      CLEAN
 * Growing node:  none: the journal holds 8 events from loop 8 on
 * Growth:        +1 event in loops 1 to 8, then 0
 * Measured:      main at c171fb7, debug build, default schedule, JSON, 3 runs: exit 0 in 3 of 3,
 *                nothing reported (31 loops). Branch pass2, 10 runs on JDK 17 and 10 on JDK 25:
 *                exit 0 in 20 of 20
 */
package corpus.attribution;

import corpus.app.EventJournal;

public class ChurnNoSurvivorClean implements Runnable {
    /** Temporary log lines per loop; `-Dcorpus.churn=N` changes it. */
    private static final int CHURN = Integer.getInteger("corpus.churn", 25_000);

    private static final EventJournal JOURNAL = new EventJournal();

    private int loop;
    private long formatted;
    /** The last temporary line (it escapes, so the JIT cannot take its allocation away). */
    private String lastLine;

    @Override
    public void run() {
        loop++;
        for (int i = 0; i < CHURN; i++) {
            String line = "request " + loop + " step " + i;
            formatted += line.length();
            lastLine = line;
        }
        JOURNAL.record("event-" + loop);
        JOURNAL.trimTo(8);
    }
}
