/*
 * SampledChurnClean: clean twin of SampledChurnLeak. The same 8,000 temporary items per loop;
 * the loop's receipt replaces the previous one in a single slot.
 *
 * Expected:      CLEAN
 * Growing node:  none: RECEIPTS holds one Item between loops
 * Growth:        0
 * Measured:      heapgrowth @ branch keep, default schedule, 3 runs: exit 0 in 3 of 3, nothing
 *                reported
 */
package corpus.attribution;

import corpus.app.Item;

public class SampledChurnClean implements Runnable {
    /** Temporary quotes per loop. */
    public static final int QUOTES = 8_000;

    private static final Object[] RECEIPTS = new Object[4096];

    private int loop;
    private long total;
    /** The last quote (it escapes, so the JIT cannot take its allocation away). */
    private Item lastQuote;

    @Override
    public void run() {
        loop++;
        RECEIPTS[0] = new Item("receipt-" + loop, loop);
        for (int i = 0; i < QUOTES; i++) {
            Item quote = new Item("q", i);
            total += quote.priceCents();
            lastQuote = quote;
        }
    }
}
