package com.example.cart;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/**
 * Writes the test JVM's options to target/jvm-options.txt, one a line, for
 * tests/junit/run-maven-sample.sh: it checks that heapgrowth's Maven plugin put the agent and the
 * settings there, and that the project's own argLine reached the JVM beside them.
 */
class JvmOptionsTest {
    @Test
    void recordsTheJvmOptions() throws IOException {
        Files.write(Path.of("target", "jvm-options.txt"), ManagementFactory.getRuntimeMXBean().getInputArguments());
    }
}
