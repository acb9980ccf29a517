package io.kubeloop.client.config;

import static io.kubeloop.client.config.ClientCertificateAndTlsTest.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.clock.FakeClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A token file is re-read when its mtime changes, a minute after the last read, or after invalidate(). */
class TokenFileRotationTest {

    @TempDir
    Path dir;

    private final FakeClock clock = new FakeClock(Instant.parse("2026-01-01T00:00:00Z"));

    /** Rewrites the file and sets its mtime, so that tests control whether the change is visible by mtime. */
    private void write(Path file, String token, FileTime mtime) throws Exception {
        Files.writeString(file, token + "\n");
        Files.setLastModifiedTime(file, mtime);
    }

    @Test
    void rotationIsSeenByMtimeByAgeAndAfterInvalidate() throws Exception {
        Path file = dir.resolve("token");
        FileTime t1 = FileTime.from(Instant.parse("2026-01-01T00:00:00Z"));
        FileTime t2 = FileTime.from(Instant.parse("2026-01-01T00:05:00Z"));
        write(file, "one", t1);
        ClientConfig config = ClientConfig.builder()
                .server("https://x")
                .tokenFile(file)
                .clock(clock)
                .build();
        Credentials creds = config.credentials();
        assertThat(creds.authorization()).contains("Bearer one");

        write(file, "two", t2); // a new mtime: read at once
        assertThat(creds.authorization()).contains("Bearer two");

        write(file, "three", t2); // same mtime: not seen until a minute after the last read
        assertThat(creds.authorization()).contains("Bearer two");
        clock.step(Duration.ofSeconds(59));
        assertThat(creds.authorization()).contains("Bearer two");
        clock.step(Duration.ofSeconds(1));
        assertThat(creds.authorization()).contains("Bearer three");

        write(file, "four", t2);
        assertThat(creds.authorization()).contains("Bearer three");
        creds.invalidate(); // after a 401
        assertThat(creds.authorization()).contains("Bearer four");

        Files.delete(file);
        creds.invalidate();
        assertError(creds::authorization, "tokenFile " + file, "no such file", "four");
        assertThat(config.toString()).contains("token file " + file).doesNotContain("four");
    }

    @Test
    void missingOrEmptyTokenFileFailsAtConfigurationTime() throws Exception {
        Path missing = dir.resolve("missing");
        assertError(
                () -> ClientConfig.builder()
                        .server("https://x")
                        .tokenFile(missing)
                        .build(),
                missing.toString(),
                "no such file",
                "\u0000");
        Path empty = Files.writeString(dir.resolve("empty"), "  \n");
        assertError(
                () -> ClientConfig.builder()
                        .server("https://x")
                        .tokenFile(empty)
                        .build(),
                empty.toString(),
                "token file is empty",
                "\u0000");
    }

    @Test
    void aTokenWinsOverATokenFileAsInKubectl() throws Exception {
        Path file = Files.writeString(dir.resolve("token"), "from-file");
        Path kc = Files.writeString(
                dir.resolve("config"),
                Kubeconfigs.single("https://x", "", "    token: inline\n    tokenFile: token\n"));
        assertThat(ClientConfig.fromKubeconfig(kc).credentials().authorization())
                .contains("Bearer inline");
        Path kc2 = Files.writeString(
                dir.resolve("config2"), Kubeconfigs.single("https://x", "", "    tokenFile: token\n"));
        assertThat(ClientConfig.fromKubeconfig(kc2).credentials().authorization())
                .contains("Bearer from-file");
        assertThat(file).exists();
    }
}
