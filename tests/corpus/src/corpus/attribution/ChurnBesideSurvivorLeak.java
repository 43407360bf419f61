/*
 * ChurnBesideSurvivorLeak: a request handler formats 25,000 temporary log lines per loop (Strings
 * that die at once) and files one event per loop into an audit journal that is never trimmed. The
 * journal (a static final corpus.app.EventJournal) holds a final ConcurrentLinkedQueue beside two
 * final ConcurrentHashMaps, all three growing: structures that link their entries by CAS (no
 * size field write to watch) in final fields (no proxy), so only allocation sampling can see the
 * growth, and the kept Strings are of the class the churn makes by the ten thousand. (Issue 32's
 * plan drew an ArrayDeque beside two HashMaps: the container watch attributes those without
 * sampling, so they are not this case.)
 *
 * Expected:      LEAK
 * Growing node:  three nodes below STATIC_FIELD corpus.attribution.ChurnBesideSurvivorLeak.JOURNAL
 *                  -> corpus.app.EventJournal: INSTANCE_FIELD EventJournal.eventById
 *                  -> ConcurrentHashMap (children [key] Integer, [x] String: the new objects),
 *                  EventJournal.lengthByEvent -> ConcurrentHashMap and EventJournal.recent
 *                  -> ConcurrentLinkedQueue (references only: their new objects are the same
 *                  Strings, counted under eventById)
 * Growth:        +1 event String (+ byte[]) per loop, in all three structures (a node of each
 *                and an Integer); 25,000 temporary Strings per loop besides
 * Growing call:  corpus.app.EventJournal.record(EventJournal.java:23), (EventJournal.java:24),
 *                (EventJournal.java:25), one for each structure, called from
 *                corpus.attribution.ChurnBesideSurvivorLeak.run(ChurnBesideSurvivorLeak.java:59)
 * Attribution:   allocation sampling's link allocations: "calls to put()" at EventJournal.java:25
 *                and :24, "calls to add()" at :23
 * Measured:      main at c171fb7 (before issue 32's live cap), debug build, default schedule,
 *                JSON, 3 runs: exit 1 in 3 of 3, the three nodes above in each, all three not
 *                attributed: "... allocation sampling saw no new object of the node's growing
 *                classes stay below it during the attribution loops; allocation sampling stopped
 *                recording after 20000 events (its cap), and 80282 to 80363 more were not
 *                recorded: the node's new objects may be among them" (the churn of the first
 *                attribution loop filled the cap). Branch pass2 (the cap counts live sampled
 *                objects), debug build, 10 runs on JDK 17 and 10 on JDK 25: exit 1 in 20 of 20,
 *                the same three nodes, all attributed in 20 of 20: "4 call(s) to add()" at
 *                EventJournal.java:23, "4 call(s) to put()" at :24 and at :25, no caveat
 */
package corpus.attribution;

import corpus.app.EventJournal;

public class ChurnBesideSurvivorLeak implements Runnable {
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
        JOURNAL.record("event-" + loop); // VIA
    }
}
