package dev.heapgrowth.glue;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Modifier;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.concurrent.atomic.AtomicLong;
import dev.heapgrowth.settle.Settler;

/**
 * One scenario under test, as the Rust engine drives it: a fresh class loader for the user's
 * classpath and a dedicated thread that owns the scenario instance.
 *
 * <p>The loader is fresh per scenario so that a scenario's static state does not depend on which
 * scenarios ran before it. Its parent is the system class loader, which holds only this glue.
 *
 * <p>Not thread-safe: the engine calls {@link #runLoops} and {@link #close} from one thread at
 * a time.
 */
public final class ScenarioHost {
    /**
     * The name of every scenario's class loader, followed by {@code -N}, N counting the
     * scenarios opened in this JVM: the engine's path tree takes the classes of the loader with
     * the largest N as roots, and those of a closed scenario's loader, which can outlive it for
     * a while (a JIT compile can hold it), apart from them (src/model/growth/roots.rs).
     */
    static final String LOADER_NAME = "heapgrowth-scenario";

    /** Scenarios opened in this JVM. */
    private static final AtomicLong OPENED = new AtomicLong();

    /** How long {@link #close} waits for the scenario thread to end. */
    private static final long CLOSE_TIMEOUT_MILLIS = 10_000;

    private final String className;
    private URLClassLoader loader;
    private ScenarioThread thread;
    /** Knows the threads that were there before the scenario, to wait for the others. */
    private final Settler settler;

    private ScenarioHost(
            String className, URLClassLoader loader, ScenarioThread thread, Settler settler) {
        this.className = className;
        this.loader = loader;
        this.thread = thread;
        this.settler = settler;
    }

    /**
     * Loads {@code className} from {@code classpathEntries} (directories and jars) in a new class
     * loader and constructs one instance on a new scenario thread.
     *
     * @throws ScenarioSetupException when the class cannot be a scenario
     * @throws ScenarioFailure with loop number 0 when the constructor (or static initialiser)
     *     throws
     * @throws ScenarioTimeout when the constructor has not returned after {@code timeoutMillis}
     */
    public static ScenarioHost open(String className, String[] classpathEntries, long timeoutMillis)
            throws ScenarioSetupException, ScenarioFailure, ScenarioTimeout {
        // The engine recognises this loader by its name (src/model/growth/roots.rs) and takes its
        // classes as roots, as the application loader's are.
        String loaderName = LOADER_NAME + "-" + OPENED.incrementAndGet();
        URLClassLoader loader = new URLClassLoader(
                loaderName, toUrls(classpathEntries), ClassLoader.getSystemClassLoader());
        boolean opened = false;
        try {
            Constructor<?> constructor = scenarioConstructor(className, loader);
            // Before the scenario's thread starts: its threads and those it starts are waited for.
            Settler settler = new Settler();
            ScenarioThread thread = new ScenarioThread(className, constructor, loader);
            thread.start();
            thread.awaitConstructed(timeoutMillis);
            opened = true;
            return new ScenarioHost(className, loader, thread, settler);
        } finally {
            if (!opened) {
                closeQuietly(loader);
            }
        }
    }

    private static Constructor<?> scenarioConstructor(String className, ClassLoader loader)
            throws ScenarioSetupException {
        Class<?> scenarioClass;
        try {
            // initialize=false: static initialisers run on the scenario thread, with the
            // constructor, so their failures are reported as the constructor's.
            scenarioClass = Class.forName(className, false, loader);
        } catch (ClassNotFoundException e) {
            throw new ScenarioSetupException(ScenarioSetupException.CLASS_NOT_FOUND, className, null);
        } catch (LinkageError e) {
            // For example compiled for a newer Java, or a superclass missing from the classpath.
            throw new ScenarioSetupException(ScenarioSetupException.CLASS_LOAD_FAILED, className, e);
        }
        if (!Runnable.class.isAssignableFrom(scenarioClass)) {
            throw new ScenarioSetupException(ScenarioSetupException.NOT_RUNNABLE, className, null);
        }
        if (scenarioClass.isInterface() || Modifier.isAbstract(scenarioClass.getModifiers())) {
            throw new ScenarioSetupException(ScenarioSetupException.ABSTRACT, className, null);
        }
        Constructor<?> constructor;
        try {
            constructor = scenarioClass.getConstructor();
        } catch (NoSuchMethodException e) {
            throw new ScenarioSetupException(
                    ScenarioSetupException.NO_PUBLIC_NO_ARG_CONSTRUCTOR, className, null);
        } catch (LinkageError e) {
            throw new ScenarioSetupException(ScenarioSetupException.CLASS_LOAD_FAILED, className, e);
        }
        // The constructor is public, but the class itself may be package-private (common for
        // test scenarios); the scenario's classes live in an unnamed module, so this is allowed.
        constructor.setAccessible(true);
        return constructor;
    }

    private static URL[] toUrls(String[] classpathEntries) {
        URL[] urls = new URL[classpathEntries.length];
        for (int i = 0; i < urls.length; i++) {
            try {
                // File.toURI adds the trailing slash that marks a directory for URLClassLoader.
                urls[i] = new File(classpathEntries[i]).toURI().toURL();
            } catch (MalformedURLException e) {
                throw new IllegalArgumentException("bad classpath entry " + classpathEntries[i], e);
            }
        }
        return urls;
    }

    /** The scenario's class loader; null once closed. For attribution, which follows paths live. */
    public ClassLoader classLoader() {
        return loader;
    }

    /** The thread the scenario runs on; null once closed. For attribution, as the thread root. */
    public Thread scenarioThread() {
        return thread;
    }

    /** The scenario's class; null once closed. For attribution, which tells the user's code by it. */
    public Class<?> scenarioClass() throws ClassNotFoundException {
        return loader == null ? null : Class.forName(className, false, loader);
    }

    /** The scenario class's name. */
    public String className() {
        return className;
    }

    /**
     * Runs {@code count} more loops on the scenario thread and waits for them, at most
     * {@code timeoutMillis}.
     *
     * @return the number of loops run over the scenario's life
     * @throws ScenarioFailure when {@code run()} throws; the remaining loops are not run
     * @throws ScenarioTimeout when the loops have not finished in time; the scenario is then
     *     given up and can only be closed
     */
    public int runLoops(int count, long timeoutMillis) throws ScenarioFailure, ScenarioTimeout {
        ScenarioThread t = thread;
        if (t == null) {
            throw new IllegalStateException("scenario " + className + " is closed");
        }
        return t.runLoops(count, timeoutMillis);
    }

    /**
     * Waits (up to two seconds) for work the loops handed to other threads to finish, before
     * a heap dump.
     *
     * @return whether everything settled in time
     */
    public boolean settle() throws InterruptedException {
        return settler.settle();
    }

    /** A full collection, then waits for the cleanup it starts (see {@link Settler#collectGarbage}). */
    public void collectGarbage() throws InterruptedException {
        settler.collectGarbage();
    }

    /**
     * Stops the scenario thread and drops every reference to the instance and its class loader,
     * so that after this the scenario's objects are garbage. Idempotent.
     */
    public void close() {
        ScenarioThread t = thread;
        thread = null;
        if (t != null) {
            t.shutdown(CLOSE_TIMEOUT_MILLIS);
        }
        URLClassLoader l = loader;
        loader = null;
        if (l != null) {
            closeQuietly(l);
        }
    }

    private static void closeQuietly(URLClassLoader loader) {
        try {
            loader.close();
        } catch (IOException e) {
            // Only open jar files are closed here; nothing to report to the engine.
        }
    }
}
