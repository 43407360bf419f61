package dev.heapgrowth.maven;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class ArgLineTest {
    @Test
    void withoutAnArgLineOfTheUsersOursIsTheWholeLine() {
        assertEquals("-agentpath:/p/a.so -Dheapgrowth.library=/p/e.so",
                ArgLine.prepend(List.of("-agentpath:/p/a.so", "-Dheapgrowth.library=/p/e.so"), null));
        assertEquals("-agentpath:/p/a.so", ArgLine.prepend(List.of("-agentpath:/p/a.so"), "  "));
    }

    // The user's argLine comes last, so a -D of theirs overrides one of ours.
    @Test
    void theUsersArgLineIsKeptAfterOurs() {
        assertEquals("-agentpath:/p/a.so -Dsome.flag=1 -Xmx1g",
                ArgLine.prepend(List.of("-agentpath:/p/a.so"), " -Dsome.flag=1 -Xmx1g "));
    }

    // A project directory with a space: Surefire would split the path in two.
    @Test
    void anArgumentWithASpaceIsQuoted() {
        assertEquals("\"-agentpath:/my project/a.so\"", ArgLine.quote("-agentpath:/my project/a.so"));
        assertEquals("'-Dheapgrowth.baseline=/a \"b\"'", ArgLine.quote("-Dheapgrowth.baseline=/a \"b\""));
        assertEquals("\"-Dx=it's\"", ArgLine.quote("-Dx=it's"));
        IllegalArgumentException both = assertThrows(IllegalArgumentException.class,
                () -> ArgLine.quote("-Dx=it's \"q\""));
        assertTrue(both.getMessage().contains("both ' and \""), both.getMessage());
    }

    // prepare-agent run twice in one build (a lifecycle execution and the goal on the command line).
    @Test
    void theAgentIsRecognisedWhenAlreadyThere() {
        String line = ArgLine.prepend(List.of("-agentpath:/my project/a.so"), "-Xmx1g");
        assertTrue(ArgLine.hasAgent(line, "-agentpath:/my project/a.so"));
        assertFalse(ArgLine.hasAgent("-Xmx1g", "-agentpath:/my project/a.so"));
        assertFalse(ArgLine.hasAgent(null, "-agentpath:/p/a.so"));
    }
}
