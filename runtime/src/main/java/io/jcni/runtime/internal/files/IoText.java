package io.jcni.runtime.internal.files;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * The text of an I/O failure for an error message: what went wrong, without the exception's class name (a
 * {@code toString()} would put {@code java.nio.file.NoSuchFileException: } in front of what users read) and without
 * repeating the path the caller's message already names.
 */
public final class IoText {
    private IoText() {
    }

    /** {@code "No such file or directory"}, {@code "not a regular file (a FIFO)"}, or the exception's message. */
    public static String reason(IOException e) {
        if (e instanceof FileSystemException f) {
            if (f.getReason() != null && !f.getReason().isEmpty()) {
                return f.getReason();
            }
            if (e instanceof NoSuchFileException) {
                return "No such file or directory";
            }
            if (e instanceof AccessDeniedException) {
                return "Permission denied";
            }
            if (e instanceof FileAlreadyExistsException) {
                return "File exists";
            }
            if (e instanceof NotDirectoryException) {
                return "Not a directory";
            }
            if (e instanceof DirectoryNotEmptyException) {
                return "Directory not empty";
            }
            if (e instanceof java.nio.file.FileSystemLoopException) {
                return "Too many levels of symbolic links";
            }
            return "I/O error"; // its message would only repeat the path
        }
        if (e instanceof java.nio.channels.ClosedByInterruptException || e instanceof java.io.InterruptedIOException) {
            return "interrupted";
        }
        String message = e.getMessage();
        return message == null || message.isEmpty() ? "I/O error" : message;
    }
}
