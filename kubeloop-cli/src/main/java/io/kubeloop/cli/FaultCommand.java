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
import java.util.concurrent.Callable;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * {@code kubeloop fault ...}: injects faults into a running kubeloop API server through its admin path
 * {@code /kubeloop/faults} (the server must run with {@code --faults}). The server is {@code --server}, or that of
 * the current context of the kubeconfig ({@code --kubeconfig}, else {@code $KUBECONFIG}, else
 * {@code ~/.kube/config}), whose certificate authority and user's credentials (a bearer token, or a client
 * certificate and key) are used too.
 */
@Command(
        name = "fault",
        mixinStandardHelpOptions = true,
        description = {
            "Inject faults into a running kubeloop API server (started with --faults).",
            "e.g. kubeloop fault partition --seconds 30"
        },
        subcommands = {
            FaultCommand.CloseWatches.class,
            FaultCommand.Fail.class,
            FaultCommand.Latency.class,
            FaultCommand.Partition.class,
            FaultCommand.Stall.class,
            FaultCommand.Compact.class,
            FaultCommand.Clear.class,
            FaultCommand.Status.class
        })
final class FaultCommand implements Runnable {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @CommandLine.Spec
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

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Sends one admin request and prints the answer; a non-2xx answer fails with the server's message. */
    int send(String method, String action, ObjectNode body) {
        Target target = target();
        URI uri = URI.create(
                stripSlash(target.server.toString()) + "/kubeloop/faults" + (action.isEmpty() ? "" : "/" + action));
        HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                .timeout(Duration.ofSeconds(30))
                .header("Accept", "application/json")
                .method(
                        method,
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
        if (body != null) {
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
            answer = JSON.readTree(response.body());
        } catch (JacksonException e) {
            answer = null;
        }
        int code = response.statusCode();
        if (code == 404
                && answer != null
                && "NotFound".equals(answer.path("reason").asString(""))) {
            throw new IllegalStateException("fault injection is not enabled on " + target.server
                    + " (start it with: kubeloop apiserver --faults)");
        }
        if (code / 100 != 2) {
            String message =
                    answer == null ? response.body() : answer.path("message").asString(response.body());
            throw new IllegalStateException("the server answered " + code + ": " + message);
        }
        spec.commandLine()
                .getOut()
                .println(
                        answer == null
                                ? response.body()
                                : JSON.writerWithDefaultPrettyPrinter().writeValueAsString(answer));
        spec.commandLine().getOut().flush();
        return 0;
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

    private static ObjectNode body() {
        return JSON.createObjectNode();
    }

    /** Sets {@code field} to an optional option's value; an option not given (null) is left out of the body. */
    private static void putIfGiven(ObjectNode body, String field, Object value) {
        if (value != null) {
            body.set(field, JSON.valueToTree(value));
        }
    }

    /** The options that bound a request fault ({@code fail}, {@code latency}): how long, and which requests. */
    static final class RequestScope {
        @Option(names = "--seconds", description = "End after this many seconds.")
        Double seconds;

        @Option(names = "--resource", description = "Only this resource (pods, deployments.apps).")
        String resource;

        @Option(
                names = "--verb",
                description = "Only this verb: get, list, watch, create, update, patch, delete, " + "deletecollection.")
        String verb;

        /** {@code body} with the options given; those not given are left out (the fault is not bounded by them). */
        ObjectNode putInto(ObjectNode body) {
            putIfGiven(body, "seconds", seconds);
            putIfGiven(body, "resource", resource);
            putIfGiven(body, "verb", verb);
            return body;
        }
    }

    @Command(
            name = "close-watches",
            mixinStandardHelpOptions = true,
            description = "End every open watch now, as a server-side timeout does.")
    static final class CloseWatches implements Callable<Integer> {
        @ParentCommand
        FaultCommand parent;

        @Option(names = "--resource", description = "Only watches of this resource (pods, deployments.apps).")
        String resource;

        @Override
        public Integer call() {
            ObjectNode b = body();
            putIfGiven(b, "resource", resource);
            return parent.send("POST", "close-watches", b);
        }
    }

    @Command(
            name = "fail",
            mixinStandardHelpOptions = true,
            description = "Answer requests with 429, 500 or 503: the next --count, or a --fraction for --seconds or "
                    + "until cleared.")
    static final class Fail implements Callable<Integer> {
        @ParentCommand
        FaultCommand parent;

        @Option(names = "--code", description = "429, 500 or 503 (default: ${DEFAULT-VALUE}).", defaultValue = "503")
        int code;

        @Option(names = "--count", description = "Fail only the next N requests in scope.")
        Integer count;

        @Option(names = "--fraction", description = "The probability, 0 to 1, that a request in scope fails.")
        Double fraction;

        @Option(names = "--retry-after", description = "Send Retry-After: N (client-go then retries up to 10 times).")
        Integer retryAfter;

        @CommandLine.Mixin
        RequestScope scope = new RequestScope();

        @Override
        public Integer call() {
            ObjectNode b = body().put("code", code);
            putIfGiven(b, "count", count);
            putIfGiven(b, "fraction", fraction);
            putIfGiven(b, "retryAfterSeconds", retryAfter);
            return parent.send("POST", "fail", scope.putInto(b));
        }
    }

    @Command(
            name = "latency",
            mixinStandardHelpOptions = true,
            description = "Delay requests by --millis plus up to --jitter-millis.")
    static final class Latency implements Callable<Integer> {
        @ParentCommand
        FaultCommand parent;

        @Option(names = "--millis", required = true, description = "The fixed delay in milliseconds.")
        int millis;

        @Option(names = "--jitter-millis", description = "Up to this many milliseconds more, drawn per request.")
        Integer jitterMillis;

        @CommandLine.Mixin
        RequestScope scope = new RequestScope();

        @Override
        public Integer call() {
            ObjectNode b = body().put("millis", millis);
            putIfGiven(b, "jitterMillis", jitterMillis);
            return parent.send("POST", "latency", scope.putInto(b));
        }
    }

    @Command(
            name = "partition",
            mixinStandardHelpOptions = true,
            description = "Pull the network cable: for --seconds, accept connections but send nothing.")
    static final class Partition implements Callable<Integer> {
        @ParentCommand
        FaultCommand parent;

        @Option(names = "--seconds", required = true, description = "How long.")
        double seconds;

        @Option(names = "--user-agent", description = "Only clients whose User-Agent starts with this.")
        String userAgent;

        @Override
        public Integer call() {
            ObjectNode b = body().put("seconds", seconds);
            putIfGiven(b, "userAgent", userAgent);
            return parent.send("POST", "partition", b);
        }
    }

    @Command(
            name = "stall",
            mixinStandardHelpOptions = true,
            description = "Hold watch events for --seconds while requests and writes go on, then deliver them.")
    static final class Stall implements Callable<Integer> {
        @ParentCommand
        FaultCommand parent;

        @Option(names = "--seconds", required = true, description = "How long.")
        double seconds;

        @Option(names = "--resource", description = "Only watches of this resource (pods, deployments.apps).")
        String resource;

        @Override
        public Integer call() {
            ObjectNode b = body().put("seconds", seconds);
            putIfGiven(b, "resource", resource);
            return parent.send("POST", "stall", b);
        }
    }

    @Command(
            name = "compact",
            mixinStandardHelpOptions = true,
            description = "Compact the history now: resuming from an older resourceVersion gets 410 Gone.")
    static final class Compact implements Callable<Integer> {
        @ParentCommand
        FaultCommand parent;

        @Override
        public Integer call() {
            return parent.send("POST", "compact", body());
        }
    }

    @Command(name = "clear", mixinStandardHelpOptions = true, description = "End every fault now.")
    static final class Clear implements Callable<Integer> {
        @ParentCommand
        FaultCommand parent;

        @Override
        public Integer call() {
            return parent.send("DELETE", "", null);
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true, description = "Show the faults in force.")
    static final class Status implements Callable<Integer> {
        @ParentCommand
        FaultCommand parent;

        @Override
        public Integer call() {
            return parent.send("GET", "", null);
        }
    }
}
