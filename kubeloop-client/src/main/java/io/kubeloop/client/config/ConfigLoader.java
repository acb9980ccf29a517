package io.kubeloop.client.config;

import io.kubeloop.client.internal.JacksonVersionCheck;
import io.kubeloop.clock.Clock;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * Finds and reads a client configuration the way kubectl and client-go do. The environment, home folder,
 * service-account folder and clock are injectable so that tests need no real {@code ~/.kube} or pod;
 * {@link #system()} uses the real ones.
 *
 * <p>Where a kubeconfig comes from, in order: an explicit path (that file alone); else {@code KUBECONFIG}, a
 * list of files separated by {@link File#pathSeparator}, merged (missing files skipped, as kubectl does);
 * else {@code ~/.kube/config}. {@link #autodetect()} falls back to {@link #inCluster()} when none of those
 * exists.
 */
public final class ConfigLoader {

    /** The service-account folder every pod has. */
    public static final Path SERVICE_ACCOUNT_DIR = Path.of("/var/run/secrets/kubernetes.io/serviceaccount");

    private final Map<String, String> env;
    private final Path home;
    private final Path serviceAccountDir;
    private final Clock clock;

    private ConfigLoader(Map<String, String> env, Path home, Path serviceAccountDir, Clock clock) {
        this.env = Map.copyOf(env);
        this.home = home;
        this.serviceAccountDir = serviceAccountDir;
        this.clock = clock;
    }

    /** The process environment, {@code user.home}, {@link #SERVICE_ACCOUNT_DIR}, the system clock. */
    public static ConfigLoader system() {
        String home = System.getProperty("user.home");
        return new ConfigLoader(
                System.getenv(), home == null ? null : Path.of(home), SERVICE_ACCOUNT_DIR, Clock.system());
    }

    /** A loader with the given environment, home folder, service-account folder and clock (for tests). */
    public static ConfigLoader of(Map<String, String> env, Path home, Path serviceAccountDir, Clock clock) {
        return new ConfigLoader(
                Objects.requireNonNull(env, "env"),
                home,
                Objects.requireNonNull(serviceAccountDir, "serviceAccountDir"),
                Objects.requireNonNull(clock, "clock"));
    }

    /**
     * {@code KUBECONFIG} or {@code ~/.kube/config} (current context) if one exists, else the pod's service
     * account if {@code KUBERNETES_SERVICE_HOST} is set.
     *
     * @throws ConfigException if none is found (the message lists where it looked), or the one found is bad
     */
    public ClientConfig autodetect() {
        JacksonVersionCheck.verify(); // before the YAML mapper: a clear message, not a NoSuchMethodError
        List<Path> files = defaultFiles();
        if (!files.isEmpty()) {
            return resolve(Kubeconfig.load(files), null);
        }
        if (blankToNull(env.get("KUBERNETES_SERVICE_HOST")) != null) {
            return inCluster();
        }
        throw new ConfigException(
                "no configuration found: " + lookedAt() + ", and KUBERNETES_SERVICE_HOST is not set (not in a pod)");
    }

    /**
     * A kubeconfig's context: {@code explicitFile} alone if given, else {@code KUBECONFIG}'s files merged, else
     * {@code ~/.kube/config}.
     *
     * @param explicitFile a kubeconfig path, or null
     * @param context      the context to use, or null for the current context
     */
    public ClientConfig kubeconfig(Path explicitFile, String context) {
        JacksonVersionCheck.verify();
        List<Path> files;
        if (explicitFile != null) {
            if (!Files.isRegularFile(explicitFile)) {
                throw new ConfigException("kubeconfig " + explicitFile + ": no such file");
            }
            files = List.of(explicitFile);
        } else {
            files = defaultFiles();
            if (files.isEmpty()) {
                throw new ConfigException("no kubeconfig found: " + lookedAt());
            }
        }
        return resolve(Kubeconfig.load(files), blankToNull(context));
    }

    /**
     * The pod's service account: server {@code https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT}, the
     * CA {@code ca.crt}, the token {@code token} (re-read as the kubelet rotates it) and the namespace
     * {@code namespace} (default {@code default}) in the service-account folder.
     */
    public ClientConfig inCluster() {
        String host = blankToNull(env.get("KUBERNETES_SERVICE_HOST"));
        String port = blankToNull(env.get("KUBERNETES_SERVICE_PORT"));
        if (host == null || port == null) {
            throw new ConfigException("not in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must "
                    + "both be set (" + (host == null ? "KUBERNETES_SERVICE_HOST" : "KUBERNETES_SERVICE_PORT")
                    + " is not)");
        }
        int p;
        try {
            p = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            p = -1;
        }
        if (p < 1 || p > 65535) {
            throw new ConfigException("in-cluster: KUBERNETES_SERVICE_PORT is not a port: " + port);
        }
        String h = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host; // IPv6
        Path ca = serviceAccountDir.resolve("ca.crt");
        Path token = serviceAccountDir.resolve("token");
        Path nsFile = serviceAccountDir.resolve("namespace");
        String namespace = "default";
        if (Files.exists(nsFile)) {
            String ns = new String(ConfigFiles.read(nsFile, "in-cluster namespace"), StandardCharsets.UTF_8).strip();
            if (!ns.isEmpty()) {
                namespace = ns;
            }
        }
        return ClientConfig.builder()
                .describedAs("in-cluster service account " + serviceAccountDir, "in-cluster")
                .server("https://" + h + ":" + p)
                .certificateAuthority(ConfigFiles.read(ca, "in-cluster CA"), "in-cluster CA " + ca)
                .tokenFile(token, "service-account token " + token)
                .namespace(namespace)
                .clock(clock)
                .build();
    }

    /** KUBECONFIG's existing files if it is set, else ~/.kube/config if it exists; empty if none. */
    private List<Path> defaultFiles() {
        String list = blankToNull(env.get("KUBECONFIG"));
        if (list != null) {
            Set<Path> files = new LinkedHashSet<>();
            for (String part : list.split(java.util.regex.Pattern.quote(File.pathSeparator))) {
                if (!part.isBlank()) {
                    Path p = Path.of(part.strip());
                    if (Files.isRegularFile(p)) {
                        files.add(p.toAbsolutePath().normalize());
                    }
                }
            }
            return new ArrayList<>(files);
        }
        if (home != null) {
            Path p = home.resolve(".kube").resolve("config");
            if (Files.isRegularFile(p)) {
                return List.of(p);
            }
        }
        return List.of();
    }

    private String lookedAt() {
        String list = blankToNull(env.get("KUBECONFIG"));
        if (list != null) {
            return "none of the files in KUBECONFIG exists (" + list + ")";
        }
        return home == null
                ? "KUBECONFIG is not set and there is no home folder"
                : "KUBECONFIG is not set and " + home.resolve(".kube").resolve("config") + " does not exist";
    }

    // ---- from a merged kubeconfig to a ClientConfig ----

    private ClientConfig resolve(Kubeconfig kc, String contextOverride) {
        String contextName = contextOverride != null ? contextOverride : kc.currentContext;
        String files = String.join(", ", kc.files.stream().map(Path::toString).toList());
        if (contextName == null) {
            throw new ConfigException("kubeconfig " + files + ": no current-context is set and no context was given"
                    + " (contexts: " + kc.contexts.keySet() + ")");
        }
        Kubeconfig.Entry context = kc.contexts.get(contextName);
        if (context == null) {
            throw new ConfigException("kubeconfig " + files + ": context \"" + contextName + "\" not found"
                    + (contextOverride == null ? " (it is the current-context of " + kc.currentContextFile + ")" : "")
                    + "; contexts: " + kc.contexts.keySet());
        }
        String clusterName = Kubeconfig.string(context, "cluster");
        if (clusterName == null) {
            throw new ConfigException(context.where() + ": cluster is not set");
        }
        Kubeconfig.Entry cluster = kc.clusters.get(clusterName);
        if (cluster == null) {
            throw new ConfigException(context.where() + ": cluster \"" + clusterName + "\" not found in kubeconfig "
                    + files + "; clusters: " + kc.clusters.keySet());
        }
        String userName = Kubeconfig.string(context, "user");
        Kubeconfig.Entry user = null;
        if (userName != null) {
            user = kc.users.get(userName);
            if (user == null) {
                throw new ConfigException(context.where() + ": user \"" + userName + "\" not found in kubeconfig "
                        + files + "; users: " + kc.users.keySet());
            }
        }
        String namespace = Kubeconfig.string(context, "namespace");

        ClientConfig.Builder b = ClientConfig.builder()
                .describedAs(
                        "kubeconfig " + files + ", context " + contextName,
                        user == null ? context.where() : user.where())
                .serverWhere(cluster.where() + ": server")
                .namespace(namespace == null ? "default" : namespace)
                .clock(clock);
        cluster(b, cluster);
        if (user != null) {
            user(b, user, cluster);
        }
        return b.build();
    }

    private static void cluster(ClientConfig.Builder b, Kubeconfig.Entry c) {
        String server = Kubeconfig.string(c, "server");
        if (server == null) {
            throw new ConfigException(c.where() + ": server is not set");
        }
        b.server(server);
        String caFile = Kubeconfig.string(c, "certificate-authority");
        byte[] caData = Kubeconfig.base64(c, "certificate-authority-data");
        if (caFile != null && caData != null) {
            throw new ConfigException(
                    c.where() + ": certificate-authority and certificate-authority-data are both set");
        }
        if (caData != null) {
            b.certificateAuthority(caData, c.where() + ": certificate-authority-data");
        } else if (caFile != null) {
            Path p = c.resolve(caFile);
            b.certificateAuthority(
                    ConfigFiles.read(p, c.where() + ": certificate-authority"),
                    c.where() + ": certificate-authority " + p);
        }
        b.insecureSkipTlsVerify(Kubeconfig.bool(c, "insecure-skip-tls-verify"));
        b.tlsServerName(Kubeconfig.string(c, "tls-server-name"));
    }

    private void user(ClientConfig.Builder b, Kubeconfig.Entry u, Kubeconfig.Entry cluster) {
        if (u.body().has("auth-provider")) {
            throw new ConfigException(u.where() + ": auth-provider plugins are not supported (removed from kubectl); "
                    + "use an exec plugin");
        }
        String token = Kubeconfig.string(u, "token");
        String tokenFile = Kubeconfig.string(u, "tokenFile");
        if (token != null) {
            b.token(token);
        } else if (tokenFile != null) {
            Path p = u.resolve(tokenFile);
            b.tokenFile(p, "tokenFile " + p);
        }
        String username = Kubeconfig.string(u, "username");
        String password = Kubeconfig.string(u, "password");
        if (username != null || password != null) {
            b.basicAuth(username == null ? "" : username, password == null ? "" : password);
        }
        byte[] cert = certOrKey(u, "client-certificate");
        byte[] key = certOrKey(u, "client-key");
        if ((cert == null) != (key == null)) {
            throw new ConfigException(u.where() + ": "
                    + (cert == null
                            ? "client-key is set without client-certificate"
                            : "client-certificate is set without client-key"));
        }
        if (cert != null) {
            b.clientCertificate(cert, describe(u, "client-certificate"), key, describe(u, "client-key"));
        }
        JsonNode exec = u.body().get("exec");
        if (exec != null && !exec.isNull()) {
            b.exec(exec(u, exec));
        }
    }

    /** The PEM of {@code field} (a file) or {@code field-data}; not both. */
    private static byte[] certOrKey(Kubeconfig.Entry u, String field) {
        String file = Kubeconfig.string(u, field);
        byte[] data = Kubeconfig.base64(u, field + "-data");
        if (file != null && data != null) {
            throw new ConfigException(u.where() + ": " + field + " and " + field + "-data are both set");
        }
        if (data != null) {
            return data;
        }
        return file == null ? null : ConfigFiles.read(u.resolve(file), u.where() + ": " + field);
    }

    private static String describe(Kubeconfig.Entry u, String field) {
        String file = Kubeconfig.string(u, field);
        return u.where() + ": " + (file == null ? field + "-data" : field + " " + u.resolve(file));
    }

    private static ExecConfig exec(Kubeconfig.Entry u, JsonNode exec) {
        String at = u.where() + ": exec";
        if (!exec.isObject()) {
            throw new ConfigException(at + " must be a mapping");
        }
        String apiVersion = text(exec, "apiVersion");
        String command = text(exec, "command");
        if (apiVersion == null) {
            throw new ConfigException(at + ": apiVersion is not set");
        }
        if (command == null) {
            throw new ConfigException(at + ": command is not set");
        }
        if (command.contains("/") || command.contains(File.separator)) {
            command = u.resolve(command).toString(); // as clientcmd: relative to the kubeconfig's folder
        }
        List<String> args = Kubeconfig.strings(u, exec.get("args"), "exec.args");
        Map<String, String> env = new java.util.LinkedHashMap<>();
        JsonNode envList = exec.get("env");
        if (envList != null && !envList.isNull()) {
            if (!envList.isArray()) {
                throw new ConfigException(at + ": env must be a list of {name, value}");
            }
            for (JsonNode e : envList) {
                String name = text(e, "name");
                if (name == null) {
                    throw new ConfigException(at + ": an env entry has no name");
                }
                String value = e.path("value").isValueNode() ? e.path("value").asString() : "";
                env.put(name, value);
            }
        }
        String mode = text(exec, "interactiveMode");
        ExecConfig.InteractiveMode interactive;
        if (mode == null) {
            if (apiVersion.equals(ExecConfig.V1)) {
                throw new ConfigException(at + ": interactiveMode must be set for " + ExecConfig.V1);
            }
            interactive = ExecConfig.InteractiveMode.IF_AVAILABLE;
        } else {
            interactive = switch (mode) {
                case "Never" -> ExecConfig.InteractiveMode.NEVER;
                case "IfAvailable" -> ExecConfig.InteractiveMode.IF_AVAILABLE;
                case "Always" -> ExecConfig.InteractiveMode.ALWAYS;
                default ->
                    throw new ConfigException(
                            at + ": interactiveMode must be Never, IfAvailable or Always, was " + mode);
            };
        }
        boolean provide = exec.path("provideClusterInfo").asBoolean(false);
        try {
            return new ExecConfig(apiVersion, command, args, env, interactive, provide);
        } catch (ConfigException e) {
            throw new ConfigException(at + ": " + e.getMessage());
        }
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || !v.isValueNode() || v.asString().isEmpty() ? null : v.asString();
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    @Override
    public String toString() {
        return "ConfigLoader[home=" + home + ", serviceAccountDir=" + serviceAccountDir + "]";
    }
}
