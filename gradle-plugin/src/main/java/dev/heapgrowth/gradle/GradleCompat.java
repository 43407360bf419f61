package dev.heapgrowth.gradle;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;

import org.gradle.api.Action;
import org.gradle.api.DomainObjectCollection;
import org.gradle.api.GradleException;
import org.gradle.api.Project;
import org.gradle.api.Task;
import org.gradle.api.file.DirectoryProperty;
import org.gradle.api.file.ProjectLayout;
import org.gradle.api.file.RegularFileProperty;
import org.gradle.api.model.ObjectFactory;
import org.gradle.api.provider.Property;
import org.gradle.api.tasks.TaskContainer;
import org.gradle.api.tasks.testing.Test;
import org.gradle.process.CommandLineArgumentProvider;
import org.gradle.process.JavaForkOptions;

/**
 * The only place that knows which Gradle runs the plugin: the API the plugin is written for
 * (today's) where it exists, the Gradle 4.4.1 way where it does not. Every method is looked up
 * once, by reflection, because no single API jar has both sides: this class compiles against
 * 4.4.1 and against the newest API (build-plugin.sh).
 *
 * <table>
 * <caption>What each side uses</caption>
 * <tr><th>need</th><th>today</th><th>Gradle 4.4.1</th></tr>
 * <tr><td>a task</td><td>{@code tasks.register} (4.9+, lazy)</td><td>{@code tasks.create}</td></tr>
 * <tr><td>configure every task of a type</td><td>{@code configureEach} (4.9+, lazy)</td><td>{@code all}</td></tr>
 * <tr><td>a property of Integer or Boolean</td><td>starts unset</td><td>starts at 0 or false:
 *     cleared</td></tr>
 * <tr><td>file and directory properties</td><td>{@code objects.fileProperty()} (5.0+)</td>
 *     <td>{@code layout.fileProperty()} (4.3 to 5.x)</td></tr>
 * <tr><td>test JVM arguments</td><td>{@code jvmArgumentProviders} (4.6+; its annotated
 *     properties are the task's inputs)</td><td>the same inputs declared on {@code test.inputs},
 *     the arguments added when the task starts</td></tr>
 * </table>
 */
final class GradleCompat {
    private static final Method REGISTER = find(TaskContainer.class, "register", String.class, Class.class, Action.class);
    private static final Method CONFIGURE_EACH = find(DomainObjectCollection.class, "configureEach", Action.class);
    private static final Method OBJECTS_FILE_PROPERTY = find(ObjectFactory.class, "fileProperty");
    private static final Method OBJECTS_DIRECTORY_PROPERTY = find(ObjectFactory.class, "directoryProperty");
    private static final Method JVM_ARGUMENT_PROVIDERS = find(JavaForkOptions.class, "getJvmArgumentProviders");

    private GradleCompat() {}

    /**
     * Registers task {@code name}, configured when it is first needed where Gradle can; returns
     * what {@code dependsOn} and {@code builtBy} take (a {@code TaskProvider} or the task).
     */
    static <T extends Task> Object register(Project project, String name, Class<T> type, Action<? super T> configure) {
        if (REGISTER != null) {
            return invoke(REGISTER, project.getTasks(), name, type, configure);
        }
        return project.getTasks().create(name, type, configure);
    }

    /** Runs {@code configure} on every element of {@code collection}, now and to come. */
    static <T> void configureEach(DomainObjectCollection<T> collection, Action<? super T> configure) {
        if (CONFIGURE_EACH != null) {
            invoke(CONFIGURE_EACH, collection, configure);
        } else {
            collection.all(configure);
        }
    }

    /**
     * A property without a value. Gradle 4.x starts a {@code Property<Integer>} at 0 and a
     * {@code Property<Boolean>} at false, which would read as set; clearing it (a no-op since
     * Gradle 5) leaves it unset, so an unset setting keeps the extension's default.
     */
    static <T> Property<T> property(Project project, Class<T> type) {
        Property<T> property = project.getObjects().property(type);
        property.set((T) null);
        return property;
    }

    static RegularFileProperty fileProperty(Project project) {
        if (OBJECTS_FILE_PROPERTY != null) {
            return (RegularFileProperty) invoke(OBJECTS_FILE_PROPERTY, project.getObjects());
        }
        return (RegularFileProperty) invoke(required(ProjectLayout.class, "fileProperty"), project.getLayout());
    }

    static DirectoryProperty directoryProperty(Project project) {
        if (OBJECTS_DIRECTORY_PROPERTY != null) {
            return (DirectoryProperty) invoke(OBJECTS_DIRECTORY_PROPERTY, project.getObjects());
        }
        return (DirectoryProperty) invoke(required(ProjectLayout.class, "directoryProperty"), project.getLayout());
    }

    /**
     * Gives {@code test}'s JVM the arguments of {@code arguments}, whose annotated properties
     * become inputs of the task: through {@code jvmArgumentProviders} where it exists, else
     * declared one by one on {@code test.inputs}, with the arguments added when the task starts
     * (after Gradle has recorded its inputs, so the absolute paths are no input).
     */
    @SuppressWarnings("unchecked") // getJvmArgumentProviders() returns List<CommandLineArgumentProvider>
    static void addJvmArguments(Test test, TestJvmArguments arguments) {
        if (JVM_ARGUMENT_PROVIDERS != null) {
            ((List<CommandLineArgumentProvider>) invoke(JVM_ARGUMENT_PROVIDERS, test)).add(arguments);
            return;
        }
        arguments.declareInputs(test.getInputs());
        test.doFirst(new AddJvmArguments(arguments));
    }

    /** Gradle 4.4.1's stand-in for a JVM argument provider (a class, not a lambda: task actions are tracked by class). */
    private static final class AddJvmArguments implements Action<Task> {
        private final TestJvmArguments arguments;

        AddJvmArguments(TestJvmArguments arguments) {
            this.arguments = arguments;
        }

        @Override
        public void execute(Task task) {
            ((Test) task).jvmArgs(arguments.asArguments());
        }
    }

    private static Method find(Class<?> owner, String name, Class<?>... parameters) {
        try {
            return owner.getMethod(name, parameters);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    /** The old side's method: a Gradle that has neither side is older than the plugin supports. */
    private static Method required(Class<?> owner, String name) {
        Method method = find(owner, name);
        if (method == null) {
            throw new GradleException("the heapgrowth plugin needs Gradle 4.4 or newer ("
                    + owner.getSimpleName() + "." + name + "() is missing)");
        }
        return method;
    }

    private static Object invoke(Method method, Object target, Object... arguments) {
        try {
            return method.invoke(target, arguments);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            throw new GradleException(method + " failed", cause);
        } catch (IllegalAccessException e) {
            throw new GradleException("cannot call " + method, e);
        }
    }
}
