package io.kubeloop.client.config;

import io.kubeloop.clock.Clock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs an {@link ExecConfig exec plugin} and caches its {@code ExecCredential}: until its
 * {@code status.expirationTimestamp} (forever without one), or until {@link #invalidate()} after a 401. The
 * credential is a token ({@link #authorization()}) or a client certificate and key ({@link #clientKey()},
 * which the SSLContext's key manager asks at each handshake; open connections keep the certificate they
 * started with).
 *
 * <p>Invariant: at most one plugin process runs at a time for one configuration; {@code cached} is null or
 * a credential that was valid when read.
 */
final class ExecCredentials implements Credentials {

    static final Duration TIMEOUT = Duration.ofMinutes(1);
    static final int STDERR_EXCERPT = 1024;
    private static final int STDOUT_LIMIT = 1 << 20;
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** What the cluster entry says, passed to the plugin when {@code provideClusterInfo} is true. */
    record ClusterInfo(String server, String tlsServerName, boolean insecure, byte[] caPem) {}

    private record Credential(String header, ClientKey clientKey, Instant expiry) {}

    private final ExecConfig config;
    private final ClusterInfo cluster;
    private final Clock clock;
    private final String where;
    private final ReentrantLock running = new ReentrantLock();
    private volatile Credential cached;

    ExecCredentials(ExecConfig config, ClusterInfo cluster, Clock clock, String where) {
        this.config = config;
        this.cluster = cluster;
        this.clock = clock;
        this.where = where + ": exec plugin " + config.command();
    }

    @Override
    public Optional<String> authorization() {
        return Optional.ofNullable(current().header());
    }

    Optional<ClientKey> clientKey() {
        return Optional.ofNullable(current().clientKey());
    }

    @Override
    public void invalidate() {
        cached = null;
    }

    private Credential current() {
        Credential c = cached;
        if (valid(c)) {
            return c;
        }
        running.lock();
        try {
            c = cached;
            if (!valid(c)) {
                c = run();
                cached = c;
            }
            return c;
        } finally {
            running.unlock();
        }
    }

    private boolean valid(Credential c) {
        return c != null && (c.expiry() == null || clock.now().isBefore(c.expiry()));
    }

    private Credential run() {
        List<String> cmd = new ArrayList<>();
        cmd.add(config.command());
        cmd.addAll(config.args());
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(config.env());
        pb.environment().put("KUBERNETES_EXEC_INFO", execInfo());
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File(nullDevice())));
        Process process;
        try {
            process = pb.start();
        } catch (IOException e) {
            throw new ConfigException(where + ": cannot start it: " + ConfigFiles.reason(e));
        }
        CompletableFuture<byte[]> stdout = drain(process.getInputStream(), STDOUT_LIMIT);
        CompletableFuture<byte[]> stderr = drain(process.getErrorStream(), STDERR_EXCERPT);
        int exit;
        try {
            if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new ConfigException(
                        where + ": did not finish within " + TIMEOUT.toSeconds() + "s" + excerpt(stderr));
            }
            exit = process.exitValue();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new ConfigException(where + ": interrupted while it ran");
        }
        if (exit != 0) {
            throw new ConfigException(where + ": exited with status " + exit + excerpt(stderr));
        }
        return parse(stdout.join(), stderr);
    }

    private Credential parse(byte[] out, CompletableFuture<byte[]> stderr) {
        JsonNode root;
        try {
            root = JSON.readTree(out);
        } catch (JacksonException e) {
            root = null;
        }
        if (root == null || !root.isObject()) {
            throw new ConfigException(where + ": did not print an ExecCredential as JSON" + excerpt(stderr));
        }
        String kind = root.path("kind").asString("");
        String apiVersion = root.path("apiVersion").asString("");
        if (!kind.equals("ExecCredential")) {
            throw new ConfigException(where + ": printed kind \"" + kind + "\", expected ExecCredential");
        }
        if (!apiVersion.equals(config.apiVersion())) {
            throw new ConfigException(where + ": printed apiVersion \"" + apiVersion + "\", expected "
                    + config.apiVersion() + " as configured");
        }
        JsonNode status = root.path("status");
        String token = text(status, "token");
        String cert = text(status, "clientCertificateData");
        String key = text(status, "clientKeyData");
        Instant expiry = null;
        String exp = text(status, "expirationTimestamp");
        if (exp != null) {
            try {
                expiry = OffsetDateTime.parse(exp).toInstant();
            } catch (DateTimeParseException e) {
                throw new ConfigException(where + ": status.expirationTimestamp is not an RFC 3339 time: " + exp);
            }
        }
        if ((cert == null) != (key == null)) {
            throw new ConfigException(where + ": status has "
                    + (cert == null
                            ? "clientKeyData without " + "clientCertificateData"
                            : "clientCertificateData without clientKeyData"));
        }
        if (token == null && cert == null) {
            throw new ConfigException(where + ": status has neither token nor clientCertificateData/clientKeyData");
        }
        ClientKey clientKey = cert == null
                ? null
                : ClientKey.fromPem(
                        cert.getBytes(StandardCharsets.US_ASCII),
                        where + ": status.clientCertificateData",
                        key.getBytes(StandardCharsets.US_ASCII),
                        where + ": status.clientKeyData");
        return new Credential(token == null ? null : "Bearer " + token, clientKey, expiry);
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() || v.asString().isEmpty() ? null : v.asString();
    }

    /** The {@code KUBERNETES_EXEC_INFO} the plugin reads: never interactive, the cluster when asked for. */
    private String execInfo() {
        ObjectNode info = JSON.createObjectNode();
        info.put("apiVersion", config.apiVersion());
        info.put("kind", "ExecCredential");
        ObjectNode spec = info.putObject("spec");
        spec.put("interactive", false);
        if (config.provideClusterInfo() && cluster != null) {
            ObjectNode c = spec.putObject("cluster");
            c.put("server", cluster.server());
            if (cluster.tlsServerName() != null) {
                c.put("tls-server-name", cluster.tlsServerName());
            }
            if (cluster.insecure()) {
                c.put("insecure-skip-tls-verify", true);
            }
            if (cluster.caPem() != null) {
                c.put("certificate-authority-data", Base64.getEncoder().encodeToString(cluster.caPem()));
            }
        }
        return JSON.writeValueAsString(info);
    }

    private static String nullDevice() {
        return System.getProperty("os.name", "").startsWith("Windows") ? "NUL" : "/dev/null";
    }

    /** Reads a stream to its end, keeping at most {@code limit} bytes, on a virtual thread. */
    private static CompletableFuture<byte[]> drain(InputStream in, int limit) {
        CompletableFuture<byte[]> result = new CompletableFuture<>();
        Thread.ofVirtual().name("kubeloop-exec-plugin-reader").start(() -> {
            ByteArrayOutputStream kept = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            try (in) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    int room = limit - kept.size();
                    if (room > 0) {
                        kept.write(buf, 0, Math.min(room, n));
                    }
                }
            } catch (IOException e) {
                // the process is gone; keep what was read
            }
            result.complete(kept.toByteArray());
        });
        return result;
    }

    /** ", stderr: ..." with at most {@link #STDERR_EXCERPT} bytes of the plugin's stderr, or nothing. */
    private static String excerpt(CompletableFuture<byte[]> stderr) {
        byte[] err;
        try {
            err = stderr.get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            return "";
        }
        String s = new String(err, StandardCharsets.UTF_8).strip();
        return s.isEmpty() ? "" : "; stderr: " + s + (err.length >= STDERR_EXCERPT ? " [...]" : "");
    }

    @Override
    public String toString() {
        return "Credentials[exec " + config.command() + "]";
    }
}
