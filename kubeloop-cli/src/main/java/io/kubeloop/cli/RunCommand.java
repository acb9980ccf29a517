package io.kubeloop.cli;

import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.config.ConfigLoader;
import io.kubeloop.controller.Manager;
import io.kubeloop.demo.PodGuardian;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kubeloop run}: starts a manager and runs it until the JVM is asked to stop (SIGTERM, as Kubernetes sends it,
 * or Ctrl-C); a shutdown hook then closes the manager gracefully. The hook is the CLI's: the library never installs
 * one. The manager is the pod-guardian operator ({@link PodGuardian}) against the cluster of a kubeconfig or the pod's
 * service account, or with {@code --class} a user's own.
 */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Run the pod-guardian operator (PodSets: kubeloop's demo operator) against a cluster until SIGTERM or "
                    + "Ctrl-C, then shut it down gracefully. The cluster: --kubeconfig, else $KUBECONFIG, else "
                    + "~/.kube/config, else the pod's service account.",
            "With --class, run a kubeloop Manager of your own instead: a 'public static Manager manager()' method, "
                    + "or a Supplier<Manager>."
        })
final class RunCommand implements Callable<Integer> {

    /** The options that configure pod-guardian, meaningless with {@code --class}. */
    private static final List<String> POD_GUARDIAN_OPTIONS = List.of(
            "--kubeconfig",
            "--context",
            "--namespace",
            "--leader-election",
            "--lease-namespace",
            "--identity",
            "--metrics-port",
            "--health-port",
            "--bind-address");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--kubeconfig",
            paramLabel = "<file>",
            description = "The kubeconfig of the cluster (default: $KUBECONFIG, else ~/.kube/config, else the pod's "
                    + "service account).")
    Path kubeconfig;

    @Option(
            names = "--context",
            paramLabel = "<name>",
            description = "The kubeconfig's context to use (default: its current context).")
    String context;

    @Option(
            names = {"--namespace", "-n"},
            paramLabel = "<ns>",
            description = "Watch PodSets and pods in this namespace only, which a Role allows (default: all "
                    + "namespaces, which needs a ClusterRole).")
    String namespace;

    @Option(
            names = "--leader-election",
            description = "Campaign for the Lease 'pod-guardian' and reconcile only while holding it, so that "
                    + "several replicas can run (default: off, this one reconciles).")
    boolean leaderElection;

    @Option(
            names = "--lease-namespace",
            paramLabel = "<ns>",
            description = "The Lease's namespace (default: the pod's namespace in a cluster, else the kubeconfig "
                    + "context's namespace, else 'default').")
    String leaseNamespace;

    @Option(
            names = "--identity",
            paramLabel = "<name>",
            description = "This replica's name in the Lease (default: $HOSTNAME, which is the pod's name in a "
                    + "cluster, else the host name).")
    String identity;

    @Option(
            names = "--metrics-port",
            paramLabel = "<port>",
            defaultValue = "8080",
            description = "Port of /metrics; 0 any free port, -1 none (default: ${DEFAULT-VALUE}).")
    int metricsPort;

    @Option(
            names = "--health-port",
            paramLabel = "<port>",
            defaultValue = "8081",
            description = "Port of /healthz and /readyz; 0 any free port, -1 none (default: ${DEFAULT-VALUE}).")
    int healthPort;

    @Option(
            names = "--bind-address",
            paramLabel = "<address>",
            defaultValue = "0.0.0.0",
            description = "Address the metrics and probe ports listen on (default: ${DEFAULT-VALUE}).")
    String bindAddress;

    @CommandLine.Mixin
    ManagerClass managerClass = new ManagerClass();

    @Override
    public Integer call() {
        CommandLine cmd = spec.commandLine();
        if (managerClass.given()) {
            ManagerClass.refusePodGuardianOptions(cmd, POD_GUARDIAN_OPTIONS);
            Manager manager = managerClass.load();
            return runUntilStopped(
                    manager,
                    null,
                    () -> "manager " + managerClass.className + " started"
                            + (manager.metricsPort() < 0 ? "" : "; metrics on port " + manager.metricsPort())
                            + (manager.healthProbePort() < 0 ? "" : "; probes on port " + manager.healthProbePort()));
        }
        if (managerClass.classPath != null) {
            throw new CommandLine.ParameterException(cmd, "--class-path needs --class");
        }
        return runPodGuardian(cmd);
    }

    private int runPodGuardian(CommandLine cmd) {
        checkPort(cmd, "--metrics-port", metricsPort);
        checkPort(cmd, "--health-port", healthPort);
        InetAddress bind;
        try {
            bind = InetAddress.getByName(bindAddress);
        } catch (UnknownHostException e) {
            throw new CommandLine.ParameterException(cmd, "--bind-address: unknown host " + bindAddress);
        }
        if (leaseNamespace != null && !leaderElection) {
            throw new CommandLine.ParameterException(cmd, "--lease-namespace needs --leader-election");
        }
        ClientConfig config = clientConfig(); // a ConfigException names the file and what is wrong, never a secret
        String me = identity != null ? identity : defaultIdentity();
        String leaseNs = leaseNamespace != null
                ? leaseNamespace
                : defaultLeaseNamespace(ConfigLoader.SERVICE_ACCOUNT_DIR, config);
        KubernetesClient client = KubernetesClient.builder(config)
                .userAgent("pod-guardian/" + VersionCommand.kubeloopVersion())
                .build();
        Manager manager;
        try {
            PodGuardian.Builder builder = PodGuardian.builder(client)
                    .identity(me)
                    .bindAddress(bind)
                    .metricsPort(metricsPort)
                    .healthProbePort(healthPort);
            if (namespace != null) {
                builder.namespace(namespace);
            }
            if (leaderElection) {
                builder.leaderElection(leaseNs);
            }
            manager = builder.build();
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
        return runUntilStopped(manager, client, () -> startupLine(config.server(), me, leaseNs, manager));
    }

    /**
     * Starts {@code manager}, prints {@code started}, and waits until the shutdown hook (or an interrupt, which stops
     * it the same way) closes it; then closes {@code client} (null: the manager's owner closes its own).
     */
    private int runUntilStopped(Manager manager, KubernetesClient client, Supplier<String> startedLine) {
        Runnable close = () -> {
            manager.close();
            if (client != null) {
                client.close();
            }
        };
        Thread hook = new Thread(close, "kubeloop-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            manager.start();
        } catch (RuntimeException e) {
            close.run();
            removeHook(hook);
            throw e;
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println("kubeloop: " + startedLine.get());
        out.flush();
        try {
            manager.awaitTermination();
        } catch (InterruptedException e) {
            // An interrupt stops the manager as Ctrl-C does (tests running the command on a thread).
            close.run();
            removeHook(hook);
            return 0;
        }
        if (client != null) {
            client.close(); // closed by the hook already, unless something else closed the manager
        }
        return 0;
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the JVM is exiting through the hook
        }
    }

    /**
     * The started line: the server, the namespaces, leader election, the endpoints (their real ports: asked once the
     * manager started); never a credential.
     */
    private String startupLine(URI server, String me, String leaseNs, Manager manager) {
        return "pod-guardian running against " + withoutUserInfo(server) + ", "
                + (namespace == null ? "all namespaces" : "namespace " + namespace) + ", "
                + (leaderElection
                        ? "leader election on lease " + leaseNs + "/" + PodGuardian.LEASE + " as " + me
                        : "leader election off")
                + "; " + endpoint("metrics", manager.metricsPort()) + ", "
                + endpoint("probes", manager.healthProbePort());
    }

    private String endpoint(String what, int port) {
        if (port < 0) {
            return "no " + what;
        }
        String host = bindAddress.equals("0.0.0.0") || bindAddress.equals("::") ? "" : bindAddress;
        return what + " on " + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    /** The cluster's configuration: {@code --kubeconfig} (and {@code --context}), else the usual places. */
    private ClientConfig clientConfig() {
        if (kubeconfig != null || context != null) {
            return ConfigLoader.system().kubeconfig(kubeconfig, context);
        }
        return ClientConfig.autodetect();
    }

    private static void checkPort(CommandLine cmd, String option, int port) {
        if (port < -1 || port > 65_535) {
            throw new CommandLine.ParameterException(
                    cmd, option + " must be a port (0 for any free one, -1 for none), was " + port);
        }
    }

    /**
     * The Lease's namespace when {@code --lease-namespace} is not given: the pod's namespace (its service account's
     * {@code namespace} file) when in a pod, else the configuration's namespace (the kubeconfig context's, or
     * {@code default}).
     */
    static String defaultLeaseNamespace(Path serviceAccountDir, ClientConfig config) {
        Path file = serviceAccountDir.resolve("namespace");
        if (Files.isRegularFile(file)) {
            try {
                String ns = Files.readString(file, StandardCharsets.UTF_8).strip();
                if (!ns.isEmpty()) {
                    return ns;
                }
            } catch (java.io.IOException e) {
                // unreadable: fall back to the configuration's namespace
            }
        }
        return config.namespace();
    }

    /** {@code $HOSTNAME} (a pod's name), else the host name, else {@code pod-guardian}. */
    static String defaultIdentity() {
        String host = System.getenv("HOSTNAME");
        if (host != null && !host.isBlank()) {
            return host.strip();
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return PodGuardian.CONTROLLER;
        }
    }

    /** The server's URI without a {@code user:password@} part, should a kubeconfig carry one. */
    static String withoutUserInfo(URI server) {
        if (server.getUserInfo() == null) {
            return server.toString();
        }
        try {
            return new URI(
                            server.getScheme(),
                            null,
                            server.getHost(),
                            server.getPort(),
                            server.getPath(),
                            server.getQuery(),
                            server.getFragment())
                    .toString();
        } catch (URISyntaxException e) {
            return server.getScheme() + "://" + server.getHost();
        }
    }
}
