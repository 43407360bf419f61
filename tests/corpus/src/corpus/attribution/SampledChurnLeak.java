/*
 * SampledChurnLeak: a price check that builds thousands of temporary items per loop (a quote per
 * catalogue line) and files the first of them, the loop's receipt, into a preallocated ring of
 * slots that is never cleared. The kept items are of the same class as the churn. Allocation
 * sampling recorded at most 20,000 objects, so it filled its record with the churn of the first
 * attribution loops and stopped, and the report had to say so; since its cap counts live
 * sampled objects (issue 32 §2.3), the dead churn no longer counts and every receipt is sampled.
 *
 * Expected:      LEAK
 * Growing field: STATIC_FIELD corpus.attribution.SampledChurnLeak.RECEIPTS -> java.lang.Object[]
 * Growth:        +1 corpus.app.Item per loop in the array (3 objects per loop with the sku
 *                String and its byte[]); 8,000 temporary Items per loop besides
 * Growing call:  corpus.attribution.SampledChurnLeak.run(SampledChurnLeak.java:43)
 *                (the allocation of the receipt, stored into the array on the same line)
 * Attribution:   allocation sampling ("allocated at"): "4 object(s) allocated" at :43, no caveat
 *                (with the 20,000-event cap: 3 objects, the receipts of loops 1 to 3, and a note
 *                that it stopped recording at its cap)
 * Measured:      heapgrowth @ branch keep, default schedule, JSON, 3 runs: exit 1 in 3 of 3;
 *                "3 object(s) allocated" at :43, caveat "allocation sampling stopped recording
 *                after 20000 events (its cap); N more were not recorded ..." (N = 12019, 12019,
 *                12021). Branch pass2 (live cap), debug build, 1 run: "4 object(s) allocated" at
 *                :43, no caveat
 */
package corpus.attribution;

import corpus.app.Item;

public class SampledChurnLeak implements Runnable {
    /** Temporary quotes per loop. */
    public static final int QUOTES = 8_000;

    private static final Object[] RECEIPTS = new Object[4096];
    private static int used;

    private int loop;
    private long total;
    /** The last quote (it escapes, so the JIT cannot take its allocation away). */
    private Item lastQuote;

    @Override
    public void run() {
        loop++;
        RECEIPTS[used++] = new Item("receipt-" + loop, loop); // GROWS
        for (int i = 0; i < QUOTES; i++) {
            Item quote = new Item("q", i);
            total += quote.priceCents();
            lastQuote = quote;
        }
    }
}
