package io.kubeloop.client.config;

import io.kubeloop.clock.Clock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A bearer token read from a file that rotates (a kubeconfig {@code tokenFile}, a projected service-account
 * token). The file is read again when its modification time changes, when {@link #REREAD} passed since the
 * last read (a rotation within the same mtime tick is still seen, as client-go re-reads every minute), or
 * after {@link #invalidate()}.
 *
 * <p>Invariant: {@code current} is the token of the last successful read, with the mtime and clock instant of
 * that read; readers see it through one volatile field, and at most one thread reads the file at a time.
 */
final class TokenFileCredentials implements Credentials {

    static final Duration REREAD = Duration.ofMinutes(1);

    private record Snapshot(String header, FileTime modified, Instant readAt) {}

    private final Path file;
    private final String where; // what to name in errors, e.g. "kubeconfig /x: user alice: tokenFile /y"
    private final Clock clock;
    private final ReentrantLock reading = new ReentrantLock();
    private volatile Snapshot current;

    TokenFileCredentials(Path file, String where, Clock clock) {
        this.file = file;
        this.where = where;
        this.clock = clock;
        this.current = read(); // a missing or empty file fails at configuration time, not at the first request
    }

    @Override
    public Optional<String> authorization() {
        Snapshot s = current;
        if (s == null || stale(s)) {
            reading.lock();
            try {
                s = current;
                if (s == null || stale(s)) {
                    s = read();
                    current = s;
                }
            } finally {
                reading.unlock();
            }
        }
        return Optional.of(s.header());
    }

    private boolean stale(Snapshot s) {
        if (!clock.now().isBefore(s.readAt().plus(REREAD))) {
            return true;
        }
        try {
            return !Files.getLastModifiedTime(file).equals(s.modified());
        } catch (IOException e) {
            return true; // read() reports it
        }
    }

    private Snapshot read() {
        try {
            FileTime modified = Files.getLastModifiedTime(file);
            String token = Files.readString(file, StandardCharsets.UTF_8).strip();
            if (token.isEmpty()) {
                throw new ConfigException(where + ": the token file is empty");
            }
            return new Snapshot("Bearer " + token, modified, clock.now());
        } catch (IOException e) {
            throw new ConfigException(where + ": cannot read the token file: " + ConfigFiles.reason(e), e);
        }
    }

    @Override
    public void invalidate() {
        current = null;
    }

    @Override
    public String toString() {
        return "Credentials[token file " + file + "]";
    }
}
