package dev.heapgrowth.glue;

/**
 * The named class cannot be a scenario. {@link #problem()} is one of the constants below; the
 * Rust side maps each to its own error variant.
 */
public final class ScenarioSetupException extends Exception {
    private static final long serialVersionUID = 1L;

    public static final String CLASS_NOT_FOUND = "CLASS_NOT_FOUND";
    /** The class file exists but cannot be loaded; the cause says why. */
    public static final String CLASS_LOAD_FAILED = "CLASS_LOAD_FAILED";
    public static final String NOT_RUNNABLE = "NOT_RUNNABLE";
    /** An interface or an abstract class. */
    public static final String ABSTRACT = "ABSTRACT";
    public static final String NO_PUBLIC_NO_ARG_CONSTRUCTOR = "NO_PUBLIC_NO_ARG_CONSTRUCTOR";

    private final String problem;

    ScenarioSetupException(String problem, String className, Throwable cause) {
        super(problem + ": " + className, cause);
        this.problem = problem;
    }

    public String problem() {
        return problem;
    }
}
