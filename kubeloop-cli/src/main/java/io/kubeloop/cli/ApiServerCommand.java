package io.kubeloop.cli;

import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.cluster.EmbeddedCluster;
import io.kubeloop.cluster.SimulatedNode;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kubeloop apiserver}: runs the embedded Kubernetes API server until interrupted, and writes a
 * kubeconfig that kubectl uses as it is.
 */
@Command(
        name = "apiserver",
        mixinStandardHelpOptions = true,
        description = {
            "Run an embedded, kubectl-compatible Kubernetes API server (1.32) until interrupted; with --nodes N, a "
                    + "small cluster behind it.",
            "Then: KUBECONFIG=<kubeconfig> kubectl get namespaces"
        })
final class ApiServerCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--port",
            description = "Port to listen on; 0 picks a free one (default: ${DEFAULT-VALUE}).",
            defaultValue = "6443")
    int port;

    @Option(names = "--host", description = "Address to bind (default: ${DEFAULT-VALUE}).", defaultValue = "127.0.0.1")
    String host;

    @Option(
            names = "--kubeconfig-out",
            description = "Where to write the kubeconfig (default: ${DEFAULT-VALUE}).",
            defaultValue = ".kubeloop/kubeconfig")
    Path kubeconfigOut;

    @CommandLine.Mixin
    TlsOptions tls = new TlsOptions();

    @Option(
            names = "--faults",
            description = "Serve the fault injection admin path /kubeloop/faults (see "
                    + "'kubeloop fault'); for tests and demos only.")
    boolean faults;

    @Option(names = "--fault-seed", description = "The seed for fault fractions and jitter (default: random).")
    Long faultSeed;

    @Option(
            names = "--rbac",
            description =
                    "Authorize every request with RBAC (Roles, ClusterRoles and their "
                            + "bindings), with kube's bootstrap roles; the kubeconfig's user is an admin. Try kubectl --as=alice.")
    boolean rbac;

    @Option(
            names = "--nodes",
            description = "Run an embedded cluster of N simulated nodes behind the server (kubelets, scheduler, "
                    + "ReplicaSet, Deployment, node lifecycle and endpoints controllers): kubectl create deployment "
                    + "gives Running pods. 0 (default): the API server alone.",
            defaultValue = "0")
    int nodes;

    @Option(
            names = "--speed",
            description = "With --nodes: seconds of cluster time per real second (default: ${DEFAULT-VALUE}); 10 "
                    + "plays a node failure's 50 s grace period and 300 s eviction in 35 s.",
            defaultValue = "1")
    double speed;

    /** Released by the shutdown hook (Ctrl-C, SIGTERM) to stop the server. */
    private final CountDownLatch stop = new CountDownLatch(1);
    /** Released once the server is closed; the hook waits for it, or the JVM would halt mid-close. */
    private final CountDownLatch stopped = new CountDownLatch(1);

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        InetAddress address;
        try {
            address = InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--host: unknown host " + host);
        }
        EmbeddedApiServer.Builder builder = EmbeddedApiServer.builder()
                .host(address)
                .port(port)
                .faultInjection(faults)
                .rbac(rbac);
        if (faultSeed != null) {
            builder.faultSeed(faultSeed);
        }
        if (nodes < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--nodes must not be negative, was " + nodes);
        }
        if (!(speed > 0) || Double.isInfinite(speed)) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--speed must be a positive number, was " + speed);
        }
        if (speed != 1.0 && nodes == 0) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--speed sets the embedded cluster's speed: give --nodes N as well");
        }
        tls.configure(spec.commandLine(), builder);
        EmbeddedCluster cluster = nodes > 0
                ? EmbeddedCluster.builder()
                        .apiServer(builder)
                        .nodes(nodes)
                        .speed(speed)
                        .start()
                : null;
        EmbeddedApiServer server = cluster != null ? cluster.apiServer() : builder.start();
        Path kubeconfig = server.writeKubeconfig(kubeconfigOut).toAbsolutePath();
        tls.writeUserKubeconfigs(server, out);
        Thread hook = new Thread(
                () -> {
                    stop.countDown();
                    try {
                        stopped.await(10, java.util.concurrent.TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "kubeloop-apiserver-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        out.println("kubeloop API server (Kubernetes 1.32) listening on " + server.url());
        out.println("kubeconfig: " + kubeconfig);
        if (cluster != null) {
            out.println("cluster: " + cluster.nodes().size() + " node" + (nodes == 1 ? "" : "s") + " Ready ("
                    + cluster.nodes().stream().map(SimulatedNode::name).collect(Collectors.joining(", "))
                    + "), speed " + speedText(speed) + "; operate them with: kubeloop node list|stop|start|partition");
            out.println("try: KUBECONFIG=" + kubeconfig
                    + " kubectl create deployment web --image=nginx --replicas=3 && kubectl get pods -o wide");
        } else {
            out.println("try: KUBECONFIG=" + kubeconfig + " kubectl get namespaces");
        }
        if (faults) {
            out.println("fault injection: " + server.url() + "/kubeloop/faults (seed "
                    + server.faults().seed() + "); try: kubeloop fault --kubeconfig " + kubeconfig + " status");
        }
        out.println("stop with Ctrl-C");
        out.flush();
        try {
            stop.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // an interrupt stops the server like Ctrl-C
        } finally {
            if (cluster != null) {
                cluster.close();
            } else {
                server.close();
            }
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the JVM is already exiting through the hook
            }
            out.println("kubeloop API server stopped");
            out.flush();
            stopped.countDown();
        }
        return 0;
    }

    /** {@code 1×}, {@code 10×}, {@code 0.5×}. */
    private static String speedText(double speed) {
        return (speed == Math.rint(speed) ? String.valueOf((long) speed) : String.valueOf(speed)) + "×";
    }
}
