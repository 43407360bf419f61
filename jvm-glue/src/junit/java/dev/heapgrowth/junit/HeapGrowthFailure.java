package dev.heapgrowth.junit;

/**
 * A {@code @HeapGrowthTest} failed: a path grows that the baseline does not accept.
 *
 * <p>The tree report is long, and build tools print a failure twice: Surefire with the stack
 * trace as the test fails, then again in the "Failures:" summary at the end of the run. The
 * summary (and every one-line view: Gradle's XML message attribute, an IDE's test list) takes
 * {@link #getMessage}, which is the report's first line and where the whole report is; the stack
 * trace ({@link #toString}, which reads {@link #getLocalizedMessage}) carries the whole report,
 * so it is printed once, with the stack.
 */
public final class HeapGrowthFailure extends AssertionError {
    private static final long serialVersionUID = 1L;

    private final String summary;

    HeapGrowthFailure(String report, String summary) {
        super(report);
        this.summary = summary;
    }

    /** The report's first line and where the whole report is. */
    @Override
    public String getMessage() {
        return summary;
    }

    /** The whole tree report, how to accept the growth, the agent's status and the page. */
    @Override
    public String getLocalizedMessage() {
        return super.getMessage();
    }
}
