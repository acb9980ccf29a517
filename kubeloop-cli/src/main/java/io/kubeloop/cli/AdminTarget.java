package io.kubeloop.cli;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Base64;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The server options of the commands that reach a running kubeloop API server's admin paths ({@code kubeloop
 * fault}, {@code node}, {@code pod}, {@code controllers}), and the request itself. The server is {@code --server}, or
 * that of the current context of the kubeconfig ({@code --kubeconfig}, else {@code $KUBECONFIG}, else {@code
 * ~/.kube/config}), whose certificate authority and user's credentials (a bearer token, or a client certificate and
 * key) are used too. A picocli mixin: its options are the command's.
 */
final class AdminTarget {

    @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--server", description = "The API server's URL (default: the current context's server).")
    URI server;

    @Option(
            names = "--kubeconfig",
            description = "The kubeconfig to read the server from (default: $KUBECONFIG, " + "else ~/.kube/config).")
    Path kubeconfig;

    @Option(
            names = "--certificate-authority",
            description = "A PEM file of the CA that signed an https server's "
                    + "certificate (default: the current context's).")
    Path certificateAuthority;

    /**
     * What the server answered: the status code, the body, and the body as JSON (null when it is not JSON).
     *
     * @param server the server asked
     */
    record Answer(URI server, int code, String body, JsonNode json) {
        /** The Status's message of a failed answer, else the body. */
        String message() {
            return json == null ? body : json.path("message").asString(body);
        }

        /** Whether the server answered 404 with a Status of reason NotFound. */
        boolean notFound() {
            return code == 404
                    && json != null
                    && "NotFound".equals(json.path("reason").asString(""));
        }
    }

    /**
     * Sends one request to {@code path} ({@code /kubeloop/...}) with a JSON body (or none) and returns the answer,
     * whatever its status code.
     *
     * @throws IllegalStateException the server cannot be reached
     */
    Answer send(String method, String path, String jsonBody) {
        Target target = target();
        URI uri = URI.create(stripSlash(target.server.toString()) + path);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                .timeout(Duration.ofSeconds(30))
                .header("Accept", "application/json")
                .method(
                        method,
                        jsonBody == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofString(jsonBody));
        if (jsonBody != null) {
            request.header("Content-Type", "application/json");
        }
        if (target.token != null) {
            request.header("Authorization", "Bearer " + target.token);
        }
        HttpResponse<String> response;
        try (HttpClient http = client(target)) {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException e) {
            throw new IllegalStateException("cannot reach " + target.server + ": connection refused");
        } catch (IOException e) {
            throw new IllegalStateException("cannot reach " + target.server + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted");
        }
        JsonNode answer;
        try {
            answer = Json.MAPPER.readTree(response.body());
        } catch (JacksonException e) {
            answer = null;
        }
        return new Answer(target.server, response.statusCode(), response.body(), answer);
    }

    /** Where to send and how to log in; a record of secrets, so its toString() is never used in a message. */
    private record Target(URI server, String token, byte[] caPem, byte[] clientCertificatePem, byte[] clientKeyPem) {
        @Override
        public String toString() {
            return "Target[" + server + "]";
        }
    }

    private Target target() {
        Path config = kubeconfig != null ? kubeconfig : defaultKubeconfig();
        JsonNode cluster = null;
        JsonNode user = null;
        if (config != null && Files.isRegularFile(config) && (server == null || certificateAuthority == null)) {
            JsonNode root;
            try {
                root = YAMLMapper.builder().build().readTree(Files.readString(config, StandardCharsets.UTF_8));
            } catch (IOException | JacksonException e) {
                throw new IllegalStateException("cannot read the kubeconfig " + config + ": " + e.getMessage());
            }
            String context = root.path("current-context").asString("");
            JsonNode ctx = named(root.path("contexts"), context).path("context");
            cluster = named(root.path("clusters"), ctx.path("cluster").asString(""))
                    .path("cluster");
            user = named(root.path("users"), ctx.path("user").asString("")).path("user");
        } else if (kubeconfig != null && !Files.isRegularFile(kubeconfig)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--kubeconfig: no such file " + kubeconfig);
        }
        URI url = server;
        if (url == null) {
            String fromConfig = cluster == null ? "" : cluster.path("server").asString("");
            if (fromConfig.isEmpty()) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "--server is required: no server in "
                                + (config == null
                                        ? "a kubeconfig ($KUBECONFIG and ~/.kube/config are not set)"
                                        : config));
            }
            url = URI.create(fromConfig);
        }
        if (!"http".equals(url.getScheme()) && !"https".equals(url.getScheme())) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--server must be an http or https URL, was " + url);
        }
        byte[] ca = null;
        try {
            if (certificateAuthority != null) {
                ca = Files.readAllBytes(certificateAuthority);
            } else if (cluster != null && cluster.hasNonNull("certificate-authority-data")) {
                ca = Base64.getDecoder()
                        .decode(cluster.get("certificate-authority-data").asString());
            } else if (cluster != null && cluster.hasNonNull("certificate-authority")) {
                ca = Files.readAllBytes(config.resolveSibling(
                        cluster.get("certificate-authority").asString()));
            }
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalStateException("cannot read the certificate authority: " + e.getMessage());
        }
        String token = user == null || !user.hasNonNull("token")
                ? null
                : user.get("token").asString();
        byte[] clientCertificate = userData(user, config, "client-certificate");
        byte[] clientKey = userData(user, config, "client-key");
        if ((clientCertificate == null) != (clientKey == null)) {
            throw new IllegalStateException("the kubeconfig's user has a client "
                    + (clientKey == null
                            ? "certificate but no client-key-data or client-key"
                            : "key but no client-certificate-data or " + "client-certificate"));
        }
        return new Target(url, token, ca, clientCertificate, clientKey);
    }

    /** The user's {@code field-data} (base64) or the file {@code field} names (relative to the kubeconfig). */
    private static byte[] userData(JsonNode user, Path config, String field) {
        if (user == null) {
            return null;
        }
        try {
            if (user.hasNonNull(field + "-data")) {
                return Base64.getDecoder().decode(user.get(field + "-data").asString());
            }
            if (user.hasNonNull(field)) {
                return Files.readAllBytes(config.resolveSibling(user.get(field).asString()));
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("the kubeconfig's " + field + "-data is not base64");
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the kubeconfig's " + field + ": " + e.getMessage());
        }
        return null;
    }

    private static JsonNode named(JsonNode list, String name) {
        for (JsonNode entry : list) {
            if (name.equals(entry.path("name").asString(""))) {
                return entry;
            }
        }
        return tools.jackson.databind.node.MissingNode.getInstance();
    }

    private static Path defaultKubeconfig() {
        String env = System.getenv("KUBECONFIG");
        if (env != null && !env.isBlank()) {
            for (String part : env.split(java.io.File.pathSeparator)) {
                if (!part.isBlank() && Files.isRegularFile(Path.of(part))) {
                    return Path.of(part); // the first file, where kubectl takes current-context from
                }
            }
        }
        Path home = Path.of(System.getProperty("user.home"), ".kube", "config");
        return Files.isRegularFile(home) ? home : null;
    }

    private static HttpClient client(Target target) {
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10));
        boolean https = "https".equals(target.server.getScheme());
        javax.net.ssl.KeyManager[] keys = https && target.clientCertificatePem != null
                ? ClientCredentials.keyManagers(
                        target.clientCertificatePem, target.clientKeyPem, "the kubeconfig's user")
                : null;
        if (keys != null && target.caPem == null) {
            try {
                SSLContext ssl = SSLContext.getInstance("TLS");
                ssl.init(keys, null, null); // the JDK's default trust
                b.sslContext(ssl);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(
                        "cannot set up TLS: " + e.getClass().getSimpleName());
            }
        }
        if (target.caPem != null && https) {
            try (InputStream in = new java.io.ByteArrayInputStream(target.caPem)) {
                KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
                trust.load(null, null);
                int i = 0;
                for (Certificate cert : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                    trust.setCertificateEntry("ca-" + i++, cert);
                }
                TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init(trust);
                SSLContext ssl = SSLContext.getInstance("TLS");
                ssl.init(keys, tmf.getTrustManagers(), null);
                b.sslContext(ssl);
            } catch (IOException | GeneralSecurityException e) {
                throw new IllegalStateException("the certificate authority is not a PEM certificate: "
                        + e.getClass().getSimpleName());
            }
        }
        return b.build();
    }

    private static String stripSlash(String s) {
        return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
    }
}
