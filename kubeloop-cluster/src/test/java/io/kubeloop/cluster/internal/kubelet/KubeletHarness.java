package io.kubeloop.cluster.internal.kubelet;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.client.resource.WatchOptions;
import io.kubeloop.client.watch.Watch;
import io.kubeloop.client.watch.WatchEvent;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.cluster.ClusterTimings;
import io.kubeloop.testsupport.TestThreads;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/** An API server on a fake clock with simulated kubelets, for one test class; closed by the class. */
final class KubeletHarness implements AutoCloseable {

    final FakeClock clock = new FakeClock();
    final EmbeddedApiServer server = EmbeddedApiServer.builder().clock(clock).start();
    final KubernetesClient client = KubernetesClient.create(
            ClientConfig.builder().server(server.url().toString()).build());
    final Kubelets kubelets;
    final ResourceClient<Pod> pods = client.resources(Pod.class).inAnyNamespace();
    final ResourceClient<Node> nodes = client.resources(Node.class);
    final ResourceClient<Lease> leases = client.resources(Lease.class).inNamespace("kube-node-lease");
    private final AtomicInteger names = new AtomicInteger();
    private final List<Watch<Pod>> watches = new CopyOnWriteArrayList<>();

    KubeletHarness(ClusterTimings timings, List<NodeTemplate> templates) {
        kubelets = Kubelets.start(client, clock, timings, templates);
        for (NodeTemplate t : templates) {
            awaitNode(t.name());
        }
    }

    Node awaitNode(String name) {
        return TestThreads.eventually()
                .until(
                        () -> nodes.get(name).orElse(null),
                        n -> n != null
                                && n.getStatus() != null
                                && n.getStatus().getConditions() != null
                                && !n.getStatus().getConditions().isEmpty());
    }

    Lease awaitLease(String name, Predicate<Lease> condition) {
        return TestThreads.eventually().until(() -> leases.get(name).orElse(null), l -> l != null && condition.test(l));
    }

    String namespace() {
        String ns = "kubelet-" + names.incrementAndGet();
        Namespace created = client.resources(Namespace.class)
                .create(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(ns)
                        .endMetadata()
                        .build());
        return created.getMetadata().getName();
    }

    /** A pod bound to {@code node} (as the scheduler would have), one container "app" running nginx. */
    static PodBuilder pod(String namespace, String name, String node, Map<String, String> annotations) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace(namespace)
                .withName(name)
                .withAnnotations(annotations)
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .endContainer()
                .endSpec();
    }

    Pod create(Pod pod) {
        return pods.create(pod);
    }

    /** Waits until the pod satisfies {@code condition}; a condition that throws (a status not there yet) is false. */
    Pod awaitPod(Pod pod, Predicate<Pod> condition) {
        var client = pods.inNamespace(pod.getMetadata().getNamespace());
        Predicate<Pod> safe = p -> {
            try {
                return condition.test(p);
            } catch (RuntimeException notYet) {
                return false;
            }
        };
        return TestThreads.eventually()
                .until(() -> client.get(pod.getMetadata().getName()).orElse(null), p -> p != null && safe.test(p));
    }

    void awaitGone(Pod pod) {
        var client = pods.inNamespace(pod.getMetadata().getNamespace());
        TestThreads.eventually()
                .until(() -> client.get(pod.getMetadata().getName()).isEmpty());
    }

    Pod get(Pod pod) {
        return pods.inNamespace(pod.getMetadata().getNamespace())
                .get(pod.getMetadata().getName())
                .orElseThrow();
    }

    /** Every change to the pods of {@code namespace} from now on, collected on a thread of its own. */
    List<WatchEvent.Change<Pod>> record(String namespace) {
        List<WatchEvent.Change<Pod>> events = new CopyOnWriteArrayList<>();
        Watch<Pod> watch = pods.inNamespace(namespace).watch(WatchOptions.none());
        watches.add(watch);
        Thread.ofVirtual().start(() -> {
            try {
                for (WatchEvent<Pod> e : watch) {
                    if (e instanceof WatchEvent.Change<Pod> c) {
                        events.add(c);
                    }
                }
            } catch (RuntimeException closed) {
                // the test is over
            }
        });
        return events;
    }

    Instant now() {
        return clock.now();
    }

    void step(Duration d) {
        clock.step(d);
    }

    @Override
    public void close() {
        watches.forEach(Watch::close);
        kubelets.close();
        client.close();
        server.close();
    }
}
