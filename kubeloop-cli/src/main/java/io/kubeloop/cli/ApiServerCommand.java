package io.kubeloop.cli;

import io.kubeloop.apiserver.EmbeddedApiServer;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
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
            "Run an embedded, kubectl-compatible Kubernetes API server (1.32) until interrupted.",
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
        EmbeddedApiServer server = tls.configure(spec.commandLine(), builder).start();
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
        out.println("try: KUBECONFIG=" + kubeconfig + " kubectl get namespaces");
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
            server.close();
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
}
