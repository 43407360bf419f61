package corpus.app;

/** A table of 1000 tax rates, built on first use and only read afterwards. */
public final class TaxTable {
    public static final int SIZE = 1000;

    /** One region's rate. */
    public static final class Rate {
        private final String region;
        private final int basisPoints;

        Rate(String region, int basisPoints) {
            this.region = region;
            this.basisPoints = basisPoints;
        }

        public String region() {
            return region;
        }

        public int basisPoints() {
            return basisPoints;
        }
    }

    private static TaxTable instance;

    private final Rate[] rates = new Rate[SIZE];

    private TaxTable() {
        for (int i = 0; i < SIZE; i++) {
            rates[i] = new Rate("R" + i, 500 + i % 1500);
        }
    }

    /** Builds the table on the first call; later calls return the same table. */
    public static TaxTable get() {
        TaxTable table = instance;
        if (table == null) {
            table = new TaxTable();
            instance = table;
        }
        return table;
    }

    public Rate rate(int region) {
        return rates[region % SIZE];
    }
}
