package dev.heapgrowth.glue;

/**
 * A scenario's constructor (loop 0) or {@code run()} (loop 1 and up) threw; the original
 * throwable is the cause.
 */
public final class ScenarioFailure extends Exception {
    private static final long serialVersionUID = 1L;

    private final int loopNumber;

    ScenarioFailure(String className, int loopNumber, Throwable cause) {
        super(loopNumber == 0
                ? "constructor of " + className + " threw"
                : "scenario " + className + " threw in loop " + loopNumber, cause);
        this.loopNumber = loopNumber;
    }

    /** 0 for the constructor, else the loop number counted from 1 over the scenario's life. */
    public int loopNumber() {
        return loopNumber;
    }
}
