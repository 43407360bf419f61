/*
 * CrashesTheJvm: its third run() writes to address 0 through sun.misc.Unsafe, as a broken
 * native library would: the JVM crashes (SIGSEGV) and writes its error report.
 *
 * Expected: ERROR (exit status 2), "the JVM aborted", naming the scenario; nothing is left in
 * $TMPDIR (the JVM's own hs_err file goes where -XX:ErrorFile says, by default the current
 * directory).
 */
package corpus.bad;

import java.lang.reflect.Field;

public class CrashesTheJvm implements Runnable {
    private int calls;

    @Override
    public void run() {
        calls++;
        if (calls == 3) {
            unsafe().putAddress(0L, 42L); // THROWS
        }
    }

    private static sun.misc.Unsafe unsafe() {
        try {
            Field field = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
            field.setAccessible(true);
            return (sun.misc.Unsafe) field.get(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
