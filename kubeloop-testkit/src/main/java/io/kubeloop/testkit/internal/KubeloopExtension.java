package io.kubeloop.testkit.internal;

import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.apiserver.fault.Faults;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.informer.SharedInformerFactory;
import io.kubeloop.testkit.KubeloopTest;
import io.kubeloop.testkit.TestNamespace;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The JUnit 5 extension behind {@link KubeloopTest}; see there for what a test gets.
 *
 * <p>State lives in JUnit's stores, never in fields, so one instance serves any number of classes, nested or in
 * parallel: the server in the class's store (or the root's when shared, keyed by its settings, so classes with
 * other settings get other servers), the class-level client in the class's store, a method's namespace in the
 * method's store. Values the stores hold are {@link AutoCloseable}, which JUnit (5.13 and later) closes when their
 * context ends, so a server is stopped even when a callback fails.
 */
public final class KubeloopExtension
        implements BeforeAllCallback, AfterAllCallback, AfterEachCallback, ParameterResolver {

    private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(KubeloopExtension.class);
    private static final String CLASS_CLIENT = "class-client";
    private static final String METHOD_NAMESPACE = "method-namespace";
    /** The type of the cluster parameter, named rather than referenced: kubeloop-cluster depends on this module. */
    private static final String CLUSTER_TYPE = "io.kubeloop.cluster.EmbeddedCluster";

    /** Starts (or finds) the server before any {@code @BeforeAll}, so its start is not charged to a test. */
    @Override
    public void beforeAll(ExtensionContext context) {
        RunningServer server = server(context);
        if (server.firstReport()) {
            context.publishReportEntry("kubeloop.apiserver", server.report());
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        RunningServer server = server(context);
        try {
            if (server.settings().faults()) {
                server.server().faults().clear(); // first: a partition would hold the namespace's deletion
            }
        } finally {
            MethodNamespace ns = context.getStore(STORE).remove(METHOD_NAMESPACE, MethodNamespace.class);
            if (ns != null) {
                ns.close();
            }
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (ServerSettings.of(context.getRequiredTestClass()).faults()) {
            server(context).server().faults().clear(); // a shared server outlives the class
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        if (parameter.isAnnotated(TestNamespace.class)) {
            return true; // resolveParameter explains a wrong type
        }
        return type == EmbeddedApiServer.class
                || type == FakeClock.class
                || type.getName().equals(CLUSTER_TYPE)
                || type == KubernetesClient.class
                || type == ClientConfig.class
                || type == Faults.class
                || type == SharedInformerFactory.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        RunningServer server = server(context);
        if (parameter.isAnnotated(TestNamespace.class)) {
            if (type != String.class) {
                throw new ParameterResolutionException("@TestNamespace goes on a String parameter, not on "
                        + parameter.getParameter() + " of " + parameter.getDeclaringExecutable());
            }
            return methodNamespace(context, server, "@TestNamespace String").name();
        }
        if (type == EmbeddedApiServer.class) {
            return server.server();
        }
        if (type == FakeClock.class) {
            if (server.fakeClock() == null) {
                throw new ParameterResolutionException(
                        "the server of " + context.getRequiredTestClass().getName()
                                + " runs on the system clock: ask for @KubeloopTest(fakeClock = true) to get a FakeClock");
            }
            return server.fakeClock();
        }
        if (type.getName().equals(CLUSTER_TYPE)) {
            if (server.cluster() == null) {
                throw new ParameterResolutionException(
                        "an EmbeddedCluster is injected only with " + "@KubeloopTest(nodes = N), N > 0, on "
                                + context.getRequiredTestClass().getName());
            }
            Object cluster = server.cluster().cluster();
            if (!type.isInstance(cluster)) {
                throw new ParameterResolutionException(
                        "the cluster is a " + cluster.getClass().getName()
                                + " from another class loader than the parameter's " + type.getName());
            }
            return cluster;
        }
        if (type == Faults.class) {
            if (!server.settings().faults()) {
                throw new ParameterResolutionException("Faults are injected only with @KubeloopTest(faults = true) "
                        + "on " + context.getRequiredTestClass().getName() + ": a test that breaks the server says so, "
                        + "and does not share a server with tests that do not");
            }
            return server.server().faults();
        }
        if (type == SharedInformerFactory.class) {
            return methodNamespace(context, server, "SharedInformerFactory").informers();
        }
        boolean perMethod = context.getTestMethod().isPresent();
        if (type == KubernetesClient.class) {
            return perMethod
                    ? methodNamespace(context, server, "KubernetesClient").client()
                    : context.getStore(STORE)
                            .getOrComputeIfAbsent(
                                    CLASS_CLIENT,
                                    k -> RunningServer.client(server.adminConfig()),
                                    KubernetesClient.class);
        }
        return perMethod ? methodNamespace(context, server, "ClientConfig").config() : server.adminConfig();
    }

    private static RunningServer server(ExtensionContext context) {
        ServerSettings settings = ServerSettings.of(context.getRequiredTestClass());
        if (settings.nodes() < 0 || !(settings.speed() > 0) || Double.isInfinite(settings.speed())) {
            throw new ExtensionConfigurationException("@KubeloopTest: nodes must not be negative and speed must be a "
                    + "positive number, were " + settings.nodes() + " and " + settings.speed());
        }
        if (settings.rbac() && !settings.tls()) {
            throw new ExtensionConfigurationException("@KubeloopTest(rbac = true) needs tls = true as well: over "
                    + "plain HTTP every request is the administrator, so RBAC would allow everything");
        }
        // Lookups go up the context tree: a method finds its class's server, a @Nested class its enclosing one's.
        ExtensionContext owner = settings.shared() ? context.getRoot() : context;
        return owner.getStore(STORE)
                .getOrComputeIfAbsent(settings, s -> RunningServer.start(settings), RunningServer.class);
    }

    private static MethodNamespace methodNamespace(ExtensionContext context, RunningServer server, String what) {
        if (context.getTestMethod().isEmpty()) {
            throw new ParameterResolutionException(what + " is per test method; in @BeforeAll, @AfterAll and "
                    + "constructors ask for KubernetesClient or ClientConfig (namespace default) instead");
        }
        return context.getStore(STORE)
                .getOrComputeIfAbsent(
                        METHOD_NAMESPACE,
                        k -> server.createNamespace(
                                namespaceName(context.getRequiredTestMethod().getName())),
                        MethodNamespace.class);
    }

    /** The method's name as a DNS label (at most 63 characters), with a random suffix: unique per method run. */
    static String namespaceName(String methodName) {
        String base = methodName
                .replaceAll("([a-z0-9])([A-Z])", "$1-$2")
                .toLowerCase(Locale.ROOT)
                .replaceAll("[^a-z0-9]+", "-")
                .replaceAll("^-+|-+$", "");
        if (base.length() > 40) {
            base = base.substring(0, 40).replaceAll("-+$", "");
        }
        if (base.isEmpty()) {
            base = "test";
        }
        StringBuilder name = new StringBuilder(base).append('-');
        String alphabet = "bcdfghjklmnpqrstvwxz2456789"; // as Kubernetes' generateName: no vowels, no look-alikes
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < 5; i++) {
            name.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return name.toString();
    }
}
