package dev.heapgrowth.junit;

/**
 * What the engine made of one {@link HeapGrowthTest} run, built by the engine
 * ({@link NativeEngine#search}) after it wrote the test's reports: what the extension prints and
 * throws. The extension reads it and does nothing else with the run.
 */
final class TestOutcome {
    /** What the extension does with the run. */
    enum Status {
        /** Nothing grows, or only what the baseline accepts: the test passes. */
        CLEAN,
        /** The test's section of the baseline was rewritten from this run: the test passes. */
        BASELINE_UPDATED,
        /** A path grows that the baseline does not accept: {@link HeapGrowthFailure}. */
        GROWING,
        /** The search could not judge (its time budget ended it too early): the test is skipped. */
        INCONCLUSIVE,
        /** heapgrowth could not run the test: {@link IllegalStateException}. */
        ERROR
    }

    final Status status;
    /** The message of the exception to throw ("" for a passing test). */
    final String message;
    /** {@link HeapGrowthFailure#getMessage()}: the report's first line and where the report is. */
    final String summary;
    /**
     * Lines to print with {@code System.err.println}: Surefire captures {@code System.err}, not
     * the process's standard error, which is why the engine does not print them itself.
     */
    final String[] notices;

    /** Called by the engine (native code); {@code status} names a {@link Status}. */
    TestOutcome(String status, String message, String summary, String[] notices) {
        this.status = Status.valueOf(status);
        this.message = message;
        this.summary = summary;
        this.notices = notices;
    }
}
