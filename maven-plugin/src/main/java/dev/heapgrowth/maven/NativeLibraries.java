package dev.heapgrowth.maven;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.Set;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The two native libraries of the heapgrowth-junit jar, written to a directory of the project's
 * build (never a shared temporary path another user could plant a library in), readable only by
 * their owner, as the Gradle plugin writes them to {@code build/heapgrowth/native}.
 */
final class NativeLibraries {
    /** Where the jar carries them (scripts/package-java.sh puts them there). */
    static final String NATIVE_DIR = "META-INF/native/linux-x86_64/";
    /** The JVMTI agent, for {@code -agentpath:}. */
    static final String AGENT = "libheapgrowth_agent.so";
    /** The engine the extension {@code System.load}s, for {@code -Dheapgrowth.library=}. */
    static final String ENGINE = "libheapgrowth.so";

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

    final Path agent;
    final Path engine;

    private NativeLibraries(Path agent, Path engine) {
        this.agent = agent;
        this.engine = engine;
    }

    /** The platform the libraries are built for, or null when this JVM runs on another one. */
    static String unsupportedPlatform(String osName, String osArch) {
        boolean linux = osName.toLowerCase(Locale.ROOT).startsWith("linux");
        boolean x8664 = osArch.equals("amd64") || osArch.equals("x86_64");
        return linux && x8664 ? null : osName + "/" + osArch;
    }

    /**
     * Writes both libraries from {@code jar} into {@code directory} (created, or narrowed, to mode
     * 0700). Each file is written beside its final name and renamed over it, so a test JVM still
     * running from an earlier build keeps the library it mapped.
     */
    static NativeLibraries extract(File jar, Path directory) throws IOException {
        Files.createDirectories(directory);
        Files.setPosixFilePermissions(directory, OWNER_ONLY);
        try (ZipFile zip = new ZipFile(jar)) {
            return new NativeLibraries(write(zip, jar, AGENT, directory), write(zip, jar, ENGINE, directory));
        }
    }

    private static Path write(ZipFile zip, File jar, String name, Path directory) throws IOException {
        ZipEntry entry = zip.getEntry(NATIVE_DIR + name);
        if (entry == null) {
            throw new IOException(jar + " lacks " + NATIVE_DIR + name + " (not built by scripts/package-java.sh?)");
        }
        Path target = directory.resolve(name);
        Path partial = Files.createTempFile(directory, name, ".partial",
                PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        try {
            // Into the file as created (Files.copy with REPLACE_EXISTING would make a new one, with
            // the umask's permissions).
            try (InputStream in = zip.getInputStream(entry); OutputStream out = Files.newOutputStream(partial)) {
                in.transferTo(out);
            }
            Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(partial);
        }
        return target.toAbsolutePath();
    }
}
