/*
 * MethodHandleWarmup: JDK-internal growth that levels off, as a test runner shows it while the
 * JVM warms up. Each of the first 84 loops looks up and invokes a method handle of a method type
 * the JVM has not seen yet (every parameter list of one to three of int, long, String and Object:
 * 4 + 16 + 64 = 84 types); later loops reuse them. The JDK interns each new MethodType in
 * MethodType.internTable and builds lambda forms for it; nothing of the scenario's own grows.
 *
 * Expected:      CLEAN (not reported); with the defaults the JDK's lambda form and species
 *                caches (LambdaForm$DMH._D_0, MethodTypeForm.lambdaForms, ClassSpecializer.cache,
 *                which of them depends on the JIT) are listed as ignored (known JDK growth); with
 *                --no-builtin-ignores it levels off after loop 124
 * Watched field: STATIC_FIELD java.lang.invoke.MethodType.internTable
 *                -> MethodType$ConcurrentWeakInternSet: one more entry for each of loops 1..84
 *                (plus the JDK's own), then the same
 * Growing call:  none of the scenario's (the JDK interns the types)
 */
package corpus.clean;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

public class MethodHandleWarmup implements Runnable {
    private static final Class<?>[] TYPES = {int.class, long.class, String.class, Object.class};
    /** Distinct parameter lists of one to three of TYPES. */
    private static final int SIGNATURES = 4 + 16 + 64;

    private int loop;
    private long sink;

    @Override
    public void run() {
        loop++;
        int signature = (loop - 1) % SIGNATURES;
        Class<?>[] parameters = parameters(signature);
        MethodHandle constant = MethodHandles.constant(long.class, (long) loop);
        MethodHandle handle = MethodHandles.dropArguments(constant, 0, parameters);
        MethodType type = MethodType.methodType(long.class, parameters);
        Object[] arguments = new Object[parameters.length];
        for (int i = 0; i < parameters.length; i++) {
            arguments[i] = sample(parameters[i]);
        }
        try {
            sink += (long) handle.asType(type).invokeWithArguments(arguments);
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** The parameter list number `index`: 4 of one type, then 16 of two, then 64 of three. */
    private static Class<?>[] parameters(int index) {
        int arity = index < 4 ? 1 : index < 20 ? 2 : 3;
        int rest = index < 4 ? index : index < 20 ? index - 4 : index - 20;
        Class<?>[] parameters = new Class<?>[arity];
        for (int i = 0; i < arity; i++) {
            parameters[i] = TYPES[rest % 4];
            rest /= 4;
        }
        return parameters;
    }

    private static Object sample(Class<?> type) {
        if (type == int.class) {
            return 1;
        }
        if (type == long.class) {
            return 2L;
        }
        return "x";
    }
}
