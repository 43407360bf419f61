package dev.heapgrowth.maven;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The JVM options heapgrowth adds to the {@code argLine} property, and how they join the user's.
 *
 * <p>Surefire and Failsafe split {@code argLine} into arguments at whitespace, honouring single
 * and double quotes (no backslash escapes), so an argument with a space is wrapped in quotes.
 * Kept free of Maven types so it is tested on its own.
 */
final class ArgLine {
    private ArgLine() {}

    /** One argument, quoted when Surefire would split it or strip its quotes. */
    static String quote(String argument) {
        boolean plain = !argument.isEmpty() && argument.chars()
                .noneMatch(c -> Character.isWhitespace(c) || c == '"' || c == '\'');
        if (plain) {
            return argument;
        }
        if (argument.indexOf('"') < 0) {
            return '"' + argument + '"';
        }
        if (argument.indexOf('\'') < 0) {
            return '\'' + argument + '\'';
        }
        throw new IllegalArgumentException(
                "cannot pass " + argument + " in argLine: it holds both ' and \", which Surefire cannot quote");
    }

    /** The arguments, quoted, then the user's own argLine (null or blank: none), which keeps the last word. */
    static String prepend(List<String> arguments, String existing) {
        String ours = arguments.stream().map(ArgLine::quote).collect(Collectors.joining(" "));
        if (existing == null || existing.isBlank()) {
            return ours;
        }
        return ours + " " + existing.trim();
    }

    /**
     * Whether {@code existing} already starts the agent at {@code agentArgument} (prepare-agent
     * ran twice in one build, as when a goal is also named on the command line): a second
     * {@code -agentpath:} would load the agent twice.
     */
    static boolean hasAgent(String existing, String agentArgument) {
        return existing != null && existing.contains(quote(agentArgument));
    }
}
