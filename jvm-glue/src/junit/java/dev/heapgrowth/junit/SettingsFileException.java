package dev.heapgrowth.junit;

import java.io.IOException;

/**
 * A file a heapgrowth setting names (the baseline) cannot be used: a directory, not UTF-8, not
 * readable. The message is one line naming the file and what is wrong, as the failed test shows it.
 */
final class SettingsFileException extends IOException {
    private static final long serialVersionUID = 1L;

    SettingsFileException(String message) {
        super(message);
    }
}
