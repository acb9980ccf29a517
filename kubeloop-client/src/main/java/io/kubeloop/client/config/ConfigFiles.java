package io.kubeloop.client.config;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** Reading configuration files with errors that name the file and the reason, never the content. */
final class ConfigFiles {

    private ConfigFiles() {}

    /** The bytes of {@code file}; {@code where} names the field that pointed at it. */
    static byte[] read(Path file, String where) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new ConfigException(where + ": cannot read " + file + ": " + reason(e), e);
        }
    }

    static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        String m = e.getMessage();
        return e.getClass().getSimpleName() + (m == null ? "" : " (" + m + ")");
    }
}
