package io.kubeloop.apiserver.internal.tls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Writes files that hold secrets (private keys, kubeconfigs with keys or tokens) readable by their owner
 * only. Invariant: the content never exists on disk with wider permissions, not even briefly — it goes to
 * a temporary file created with mode 600 in the same folder, then replaces the target atomically.
 */
public final class SecretFiles {

    private SecretFiles() {}

    /** Writes {@code content} to {@code file} with mode 600, creating parent folders (mode 700 when new). */
    public static Path write(Path file, String content) throws IOException {
        Path target = file.toAbsolutePath();
        Path parent = target.getParent();
        boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
        if (parent != null && !Files.isDirectory(parent)) {
            if (posix) {
                Files.createDirectories(
                        parent, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } else {
                Files.createDirectories(parent);
            }
        }
        Path temp = posix
                ? Files.createTempFile(
                        parent,
                        ".kubeloop-",
                        ".tmp",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))
                : Files.createTempFile(parent, ".kubeloop-", ".tmp");
        try {
            Files.writeString(temp, content, StandardCharsets.UTF_8);
            try {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (java.nio.file.AtomicMoveNotSupportedException e) {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
        return file;
    }
}
