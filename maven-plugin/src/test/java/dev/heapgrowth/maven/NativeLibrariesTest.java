package dev.heapgrowth.maven;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativeLibrariesTest {
    @TempDir
    Path temp;

    @Test
    void bothLibrariesAreWrittenForTheOwnerOnly() throws IOException {
        Path jar = jar(temp.resolve("heapgrowth-junit.jar"), NativeLibraries.AGENT, NativeLibraries.ENGINE);
        Path dir = temp.resolve("target/heapgrowth/native");
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(dir.resolve(NativeLibraries.ENGINE), "an older build");

        NativeLibraries libraries = NativeLibraries.extract(jar.toFile(), dir);

        assertEquals(dir.resolve(NativeLibraries.AGENT).toAbsolutePath(), libraries.agent);
        assertArrayEquals(bytes(NativeLibraries.ENGINE), Files.readAllBytes(libraries.engine));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(libraries.agent)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(libraries.engine)));
        try (var names = Files.list(dir)) {
            assertEquals(2, names.count(), "no partial file left");
        }
    }

    @Test
    void aJarWithoutTheAgentIsNamedInTheError() throws IOException {
        Path jar = jar(temp.resolve("other.jar"), NativeLibraries.ENGINE);
        IOException e = assertThrows(IOException.class,
                () -> NativeLibraries.extract(jar.toFile(), temp.resolve("native")));
        assertTrue(e.getMessage().contains("other.jar lacks META-INF/native/linux-x86_64/libheapgrowth_agent.so"),
                e.getMessage());
    }

    @Test
    void onlyLinuxX8664IsSupported() {
        assertNull(NativeLibraries.unsupportedPlatform("Linux", "amd64"));
        assertEquals("Mac OS X/aarch64", NativeLibraries.unsupportedPlatform("Mac OS X", "aarch64"));
        assertEquals("Linux/aarch64", NativeLibraries.unsupportedPlatform("Linux", "aarch64"));
    }

    private static Path jar(Path path, String... libraries) throws IOException {
        try (OutputStream file = Files.newOutputStream(path); ZipOutputStream zip = new ZipOutputStream(file)) {
            for (String name : libraries) {
                zip.putNextEntry(new ZipEntry(NativeLibraries.NATIVE_DIR + name));
                zip.write(bytes(name));
                zip.closeEntry();
            }
        }
        return path;
    }

    private static byte[] bytes(String name) {
        return ("the bytes of " + name).getBytes(StandardCharsets.UTF_8);
    }
}
