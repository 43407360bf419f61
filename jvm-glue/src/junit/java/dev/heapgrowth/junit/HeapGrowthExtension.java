package dev.heapgrowth.junit;

import java.lang.management.ManagementFactory;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.opentest4j.TestAbortedException;

/**
 * Runs a {@link HeapGrowthTest} method as the loops of a heap-growth scenario through the Rust
 * engine, and fails the test with the engine's tree report when a path grows that the baseline
 * does not accept.
 *
 * <p>System properties (the Gradle plugin sets them from {@code heapGrowth { }}):
 * <ul>
 * <li>{@code heapgrowth.warmup}, {@code heapgrowth.loopsPerSnapshot}, {@code heapgrowth.maxSnapshots},
 *     {@code heapgrowth.confirmLoops}, {@code heapgrowth.timeBudget} (seconds)
 * <li>{@code heapgrowth.jfr=true}: JFR old-object samples instead of heap dumps, for every test
 * <li>{@code heapgrowth.ignoreFile}: a file of ignore rules, one per line, for every test
 * <li>{@code heapgrowth.reportDir}: where {@code <test>.txt}, {@code <test>.json} and the HTML
 *     report {@code <test>.html} go, with {@code index.html} listing the pages there
 *     (default {@code build/reports/heapgrowth}; under Maven Surefire or Failsafe
 *     {@code target/heapgrowth-reports})
 * <li>{@code heapgrowth.baseline}: the baseline file of accepted growth paths
 * <li>{@code heapgrowth.updateBaseline=true}: rewrite this test's section of the baseline from
 *     the current run instead of checking it
 * <li>{@code heapgrowth.library}: the engine library to load instead of the jar's copy
 * <li>{@code heapgrowth.skip=true}: every heap-growth test is reported as skipped, not run
 * </ul>
 *
 * <p>The extension passes these and the test's {@link HeapGrowthTest} attributes to the engine
 * without reading them ({@link #request}); the engine parses them, writes the reports and says
 * what to throw ({@link TestOutcome}).
 *
 * <p>On a platform this jar has no engine for (and no {@code heapgrowth.library}), a heap-growth
 * test is skipped (a failed JUnit assumption) with one line saying why: nothing is wrong with it.
 * So is a test whose time budget ended the search before it could judge (nothing grew yet, on
 * a slow or loaded machine): passing it would call it clean.
 */
public final class HeapGrowthExtension implements InvocationInterceptor {
    /** {@code -Dheapgrowth.skip=true} reports every heap-growth test as skipped. */
    static final String SKIP_PROPERTY = "heapgrowth.skip";
    /** The system properties the engine reads besides those starting with {@code heapgrowth.}. */
    private static final String[] BUILD_TOOL_PROPERTIES = {
        "basedir", "surefire.test.class.path", "surefire.real.class.path"
    };

    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> context,
            ExtensionContext extensionContext) throws Throwable {
        Method method = context.getExecutable();
        HeapGrowthTest settings = method.getAnnotation(HeapGrowthTest.class);
        if (settings == null) {
            // Registered with @ExtendWith on a class: only @HeapGrowthTest methods are looped.
            invocation.proceed();
            return;
        }
        String name = method.getDeclaringClass().getName() + "." + method.getName();
        LoopCallback callback = new LoopCallback(method, context.getTarget().orElse(null),
                context.getArguments().toArray());
        // The loops invoke the method themselves; JUnit must not run it once more.
        invocation.skip();
        // Read before the engine loads: a skipped test or a platform without an engine needs none.
        if (Boolean.getBoolean(SKIP_PROPERTY)) {
            throw new TestAbortedException(SKIP_PROPERTY + "=true: heap-growth test skipped");
        }
        String unavailable = NativeEngine.unavailable();
        if (unavailable != null) {
            throw new TestAbortedException(unavailable);
        }

        NativeEngine.load();
        TestOutcome outcome = NativeEngine.search(callback, name, request(settings));
        if (callback.thrown() != null) {
            throw callback.thrown();
        }
        for (String notice : outcome.notices) {
            System.err.println(notice);
        }
        switch (outcome.status) {
            case ERROR:
                throw new IllegalStateException(outcome.message);
            case INCONCLUSIVE:
                throw new TestAbortedException(outcome.message);
            case GROWING:
                throw new HeapGrowthFailure(outcome.message, outcome.summary);
            default:
                return;
        }
    }

    /**
     * The test's settings as the engine reads them, {@code key=value} each, not interpreted
     * here: every {@link HeapGrowthTest} attribute as {@code @name=value} (an array one entry
     * per element, defaults included), every system property starting with {@code heapgrowth.}
     * and the build tool's ones the report directory depends on as {@code name=value}, and each
     * of the JVM's input arguments as {@code jvm.arg=<argument>} (where the engine finds its
     * agent's {@code -agentpath:}).
     */
    static String[] request(HeapGrowthTest settings) throws IllegalAccessException, InvocationTargetException {
        List<String> pairs = new ArrayList<>();
        for (Method attribute : HeapGrowthTest.class.getDeclaredMethods()) {
            Object value = attribute.invoke(settings);
            if (value instanceof Object[]) {
                for (Object element : (Object[]) value) {
                    pairs.add("@" + attribute.getName() + "=" + element);
                }
            } else {
                pairs.add("@" + attribute.getName() + "=" + value);
            }
        }
        for (String property : System.getProperties().stringPropertyNames()) {
            if (property.startsWith("heapgrowth.")) {
                pairs.add(property + "=" + System.getProperty(property));
            }
        }
        for (String property : BUILD_TOOL_PROPERTIES) {
            String value = System.getProperty(property);
            if (value != null) {
                pairs.add(property + "=" + value);
            }
        }
        for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            pairs.add("jvm.arg=" + argument);
        }
        return pairs.toArray(new String[0]);
    }
}
