package io.kubeloop.testkit;

import io.kubeloop.testkit.internal.KubeloopExtension;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives a JUnit 5 test class a real, in-process Kubernetes API server ({@code kubeloop-apiserver}) and each test
 * method a fresh namespace and a client pointed at it.
 *
 * <pre>{@code
 * @KubeloopTest
 * class MyControllerTest {
 *     @Test
 *     void reconciles(KubernetesClient client, @TestNamespace String namespace) { ... }
 * }
 * }</pre>
 *
 * <p><b>Lifecycle.</b> The server starts before the class's {@code @BeforeAll} methods and stops after its
 * {@code @AfterAll} methods; with {@link #shared()} it is started once per JVM (per combination of settings) and
 * stopped when the test run ends. {@code @Nested} classes use their enclosing class's server. Each test method gets
 * a namespace of its own, created when the method (or its {@code @BeforeEach}) first asks for one of the
 * per-method parameters below, and deleted — with everything in it — after its {@code @AfterEach} methods.
 *
 * <p><b>Parameters</b> of test methods, lifecycle methods and constructors:
 * <ul>
 *   <li>{@code EmbeddedApiServer} — the server ({@code url()}, {@code kubeconfig()}, {@code kubeconfigFor(user)} …);
 *   <li>{@code KubernetesClient} — the administrator's client; in a test method and its
 *       {@code @BeforeEach}/{@code @AfterEach}, its default namespace is the method's namespace (one client per
 *       method, closed after it); in {@code @BeforeAll}, {@code @AfterAll} and constructors it is
 *       {@code default}. No client-side rate limit; the client's other defaults (read retries, timeouts) apply;
 *   <li>{@code ClientConfig} — that client's configuration, to build a client of your own;
 *   <li>{@code SharedInformerFactory} — per method: informers on the method's namespace through its client, not
 *       started; shut down after the method, before the namespace is deleted;
 *   <li>{@code @TestNamespace String} — the method's namespace (test and per-method lifecycle methods only);
 *   <li>{@code Faults} — the server's fault controls, with {@link #faults()} only;
 *   <li>{@code EmbeddedCluster} — the cluster behind the server, with {@link #nodes()} &gt; 0 only (needs
 *       {@code kubeloop-cluster} on the test class path);
 *   <li>{@code FakeClock} — the clock of the server (and cluster), with {@link #fakeClock()} only.
 * </ul>
 *
 * <p>Namespaces are unique, so test methods are isolated from each other even on a shared server and under
 * parallel execution, as long as they stay in their namespace; cluster-scoped objects they create are theirs to
 * delete. Each server started publishes a report entry {@code kubeloop.apiserver} with its URL and start time.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(KubeloopExtension.class)
public @interface KubeloopTest {

    /**
     * Serve HTTPS with a CA generated at start, and authenticate every request (client certificates and bearer
     * tokens). The injected client trusts the CA and is the administrator (group {@code system:masters});
     * {@code server.kubeconfigFor("alice", "devs")} makes a kubeconfig for another user.
     */
    boolean tls() default false;

    /**
     * Authorize every request with RBAC (Roles, ClusterRoles and their bindings, with kube-apiserver's bootstrap
     * roles). Needs {@link #tls()}: over plain HTTP every request is the administrator.
     */
    boolean rbac() default false;

    /**
     * Inject the server's {@code Faults} (partitions, failures, latency, closed watches, compaction) and serve
     * the fault admin path. Every fault still in force is cleared after each test method and after the class.
     */
    boolean faults() default false;

    /**
     * One server for every test class in the JVM with the same settings, stopped at the end of the test run,
     * instead of one per class. Saves the start (milliseconds) per class; costs nothing in isolation between
     * methods, which have their own namespaces either way.
     */
    boolean shared() default false;

    /**
     * Put an embedded cluster of this many simulated nodes behind the server ({@code node-1} … {@code node-N}, with
     * kubelets, a scheduler and the ReplicaSet, Deployment, node lifecycle and endpoints controllers), so that a
     * Deployment gets Running pods; the test gets it as an {@code io.kubeloop.cluster.EmbeddedCluster} parameter to
     * stop a node, crash a container or restart the controllers. 0 (the default): no cluster, a bare API server. Needs
     * {@code io.kubeloop:kubeloop-cluster} on the test class path. Node states are the class's: a test that stops a
     * node starts it again, or has a class (and cluster) of its own.
     */
    int nodes() default 0;

    /**
     * How many seconds of cluster time pass per second of the clock (default 1), with {@link #nodes()}: at 10 a node
     * failure's 50 s grace period and 300 s toleration play in 35 s. With {@link #fakeClock()} a step of the clock
     * moves the cluster by step × speed.
     */
    double speed() default 1.0;

    /**
     * Run the server (and the cluster) on a {@code FakeClock} that the test gets as a parameter and steps: with
     * {@link #nodes()}, {@code clock.step(Duration.ofSeconds(50))} after stopping a node makes it NotReady, 300 s more
     * evicts its pods. Timestamps, graceful deletions and watch timeouts of the server move only when it is stepped.
     */
    boolean fakeClock() default false;
}
