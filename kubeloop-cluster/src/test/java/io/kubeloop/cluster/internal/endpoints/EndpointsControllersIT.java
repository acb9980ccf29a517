package io.kubeloop.cluster.internal.endpoints;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.EndpointAddress;
import io.fabric8.kubernetes.api.model.EndpointSubset;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodIPBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.resource.DeleteOptions;
import io.kubeloop.client.resource.ListOptions;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.client.transport.RateLimiter;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.cluster.ClusterTimings;
import io.kubeloop.controller.Manager;
import io.kubeloop.testsupport.Kubectl;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The endpoints and EndpointSlice controllers in one manager on the embedded API server (over HTTP), on a fake
 * clock. Pods are created bound to Node objects of the test, and their status (IP, Ready) is written by the test as
 * a kubelet would. One namespace per test.
 */
class EndpointsControllersIT {

    private static final FakeClock clock = new FakeClock();
    private static EmbeddedApiServer server;
    private static KubernetesClient client;
    private static Manager manager;
    private static final AtomicInteger namespaces = new AtomicInteger();
    private static final AtomicInteger ips = new AtomicInteger();

    private String ns;

    @BeforeAll
    static void start() {
        server = EmbeddedApiServer.builder().clock(clock).start();
        client = KubernetesClient.builder(
                        ClientConfig.builder().server(server.url()).build())
                .rateLimiter(RateLimiter.unlimited())
                .build();
        for (String[] node : new String[][] {{"node-a", "zone-a"}, {"node-b", "zone-b"}}) {
            client.resources(Node.class)
                    .create(new NodeBuilder()
                            .withNewMetadata()
                            .withName(node[0])
                            .addToLabels("topology.kubernetes.io/zone", node[1])
                            .endMetadata()
                            .build());
        }
        manager = Manager.builder(client)
                .clock(clock)
                .metricsPort(-1)
                .healthProbePort(-1)
                .gracefulShutdownTimeout(Duration.ZERO)
                .build();
        EndpointsController.register(manager, ClusterTimings.DEFAULTS);
        EndpointSliceController.register(manager, ClusterTimings.DEFAULTS);
        // sync the caches in real time, so that the manager's own wait (on the fake clock) returns at once
        manager.informerFactory().start();
        for (Class<? extends io.fabric8.kubernetes.api.model.HasMetadata> type :
                List.of(Service.class, Pod.class, Endpoints.class, EndpointSlice.class, Node.class)) {
            eventually().until(() -> manager.informerFactory().informerFor(type).hasSynced());
        }
        manager.start();
    }

    @AfterAll
    static void stop() {
        manager.close();
        client.close();
        server.close();
    }

    @BeforeEach
    void namespace() {
        ns = "ep-" + namespaces.incrementAndGet();
        client.resources(Namespace.class)
                .create(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(ns)
                        .endMetadata()
                        .build());
    }

    static ConditionFactory eventually() {
        return await().atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5));
    }

    @Test
    void readyPodsAreAddressesAndOthersNotReadyAddressesOrLeftOut() {
        service("web", Map.of("app", "web"), port("http", 80, new IntOrString(8080)));
        Pod ready = runningPod("ready", Map.of("app", "web"), "node-a", true);
        Pod unready = runningPod("unready", Map.of("app", "web"), "node-b", false);
        pod("no-ip", Map.of("app", "web"), "node-a"); // scheduled, no IP yet
        Pod done = runningPod("done", Map.of("app", "web"), "node-a", true);
        setPhase(done, "Succeeded");
        runningPod("other", Map.of("app", "db"), "node-a", true);

        Endpoints ep = awaitEndpoints(
                "web", e -> addresses(e).size() == 1 && notReady(e).size() == 1);
        assertThat(ep.getSubsets()).hasSize(1);
        EndpointSubset subset = ep.getSubsets().get(0);
        EndpointAddress address = subset.getAddresses().get(0);
        assertThat(address.getIp()).isEqualTo(ip(ready));
        assertThat(address.getNodeName()).isEqualTo("node-a");
        assertThat(address.getTargetRef().getKind()).isEqualTo("Pod");
        assertThat(address.getTargetRef().getName()).isEqualTo("ready");
        assertThat(address.getTargetRef().getNamespace()).isEqualTo(ns);
        assertThat(address.getTargetRef().getUid())
                .isEqualTo(ready.getMetadata().getUid());
        assertThat(subset.getNotReadyAddresses().get(0).getIp()).isEqualTo(ip(unready));
        assertThat(subset.getPorts()).singleElement().satisfies(p -> {
            assertThat(p.getName()).isEqualTo("http");
            assertThat(p.getPort()).isEqualTo(8080);
            assertThat(p.getProtocol()).isEqualTo("TCP");
        });
        assertThat(ep.getMetadata().getLabels()).containsEntry("team", "blue");

        List<EndpointSlice> slices = awaitSlices("web", s -> endpointCount(s) == 2);
        EndpointSlice slice = slices.get(0);
        assertThat(slice.getMetadata().getName()).startsWith("web-");
        assertThat(slice.getAddressType()).isEqualTo("IPv4");
        assertThat(slice.getMetadata().getLabels())
                .containsEntry("kubernetes.io/service-name", "web")
                .containsEntry("endpointslice.kubernetes.io/managed-by", "endpointslice-controller.k8s.io")
                .containsEntry("team", "blue");
        assertThat(slice.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> {
            assertThat(o.getKind()).isEqualTo("Service");
            assertThat(o.getName()).isEqualTo("web");
            assertThat(o.getController()).isTrue();
        });
        assertThat(slice.getPorts()).singleElement().satisfies(p -> {
            assertThat(p.getName()).isEqualTo("http");
            assertThat(p.getPort()).isEqualTo(8080);
        });
        Endpoint readyEndpoint = endpoint(slice, "ready");
        assertThat(readyEndpoint.getAddresses()).containsExactly(ip(ready));
        assertThat(readyEndpoint.getConditions().getReady()).isTrue();
        assertThat(readyEndpoint.getConditions().getServing()).isTrue();
        assertThat(readyEndpoint.getConditions().getTerminating()).isFalse();
        assertThat(readyEndpoint.getNodeName()).isEqualTo("node-a");
        assertThat(readyEndpoint.getZone()).isEqualTo("zone-a");
        assertThat(endpoint(slice, "unready").getConditions().getReady()).isFalse();
        assertThat(endpoint(slice, "unready").getZone()).isEqualTo("zone-b");

        // the pod turns Ready a minute later: it moves to the addresses, the trigger time is its transition, and the
        // slice is updated in place
        clock.step(Duration.ofMinutes(1));
        Instant transition = clock.now().truncatedTo(ChronoUnit.SECONDS);
        setStatus(unready, ip(unready), true);
        Endpoints readyNow = awaitEndpoints(
                "web", e -> addresses(e).size() == 2 && notReady(e).isEmpty());
        assertThat(readyNow.getMetadata().getAnnotations())
                .containsEntry("endpoints.kubernetes.io/last-change-trigger-time", transition.toString());
        List<EndpointSlice> after = awaitSlices(
                "web", s -> endpoint(s.get(0), "unready").getConditions().getReady());
        assertThat(after.get(0).getMetadata().getAnnotations())
                .containsEntry("endpoints.kubernetes.io/last-change-trigger-time", transition.toString());
        assertThat(after).singleElement().satisfies(s -> assertThat(
                        s.getMetadata().getName())
                .isEqualTo(slice.getMetadata().getName()));
    }

    @Test
    void aChangeThatMovesNoEndpointWritesNothing() {
        service("web", Map.of("app", "web"), port("", 80, new IntOrString(80)));
        runningPod("a", Map.of("app", "web"), "node-a", true);
        Endpoints ep = awaitEndpoints("web", e -> addresses(e).size() == 1);
        EndpointSlice slice = awaitSlices("web", s -> endpointCount(s) == 1).get(0);
        double endpointSyncs = reconciles("endpoint");
        double sliceSyncs = reconciles("endpointslice");
        double failures = errors("endpoint") + errors("endpointslice");

        client.resources(Service.class).inNamespace(ns).edit("web", s -> new ServiceBuilder(s)
                .editMetadata()
                .addToAnnotations("note", "no endpoint changes")
                .endMetadata()
                .build());

        eventually().until(() -> reconciles("endpoint") > endpointSyncs && reconciles("endpointslice") > sliceSyncs);
        assertThat(endpoints().get("web").orElseThrow().getMetadata().getResourceVersion())
                .isEqualTo(ep.getMetadata().getResourceVersion());
        assertThat(slices("web")).singleElement().satisfies(s -> assertThat(
                        s.getMetadata().getResourceVersion())
                .isEqualTo(slice.getMetadata().getResourceVersion()));
        assertThat(errors("endpoint") + errors("endpointslice")).isEqualTo(failures);
    }

    @Test
    void endpointsAndSlicesDeletedBySomeoneComeBack() {
        service("web", Map.of("app", "web"), port("", 80, new IntOrString(80)));
        Pod a = runningPod("a", Map.of("app", "web"), "node-a", true);
        Endpoints ep = awaitEndpoints("web", e -> addresses(e).size() == 1);
        EndpointSlice slice = awaitSlices("web", s -> endpointCount(s) == 1).get(0);

        endpoints().delete("web");
        client.resources(EndpointSlice.class)
                .inNamespace(ns)
                .delete(slice.getMetadata().getName());

        Endpoints again = awaitEndpoints(
                "web", e -> !e.getMetadata().getUid().equals(ep.getMetadata().getUid()));
        assertThat(addresses(again)).containsExactly(ip(a));
        List<EndpointSlice> slices = awaitSlices("web", s -> s.stream()
                .noneMatch(x ->
                        x.getMetadata().getName().equals(slice.getMetadata().getName())));
        assertThat(slices).singleElement().satisfies(s -> assertThat(s.getEndpoints())
                .singleElement()
                .satisfies(e -> assertThat(e.getAddresses()).containsExactly(ip(a))));
    }

    private static double reconciles(String controller) {
        return manager
                .meterRegistry()
                .find("controller.runtime.reconcile")
                .tags("controller", controller)
                .counters()
                .stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    private static double errors(String controller) {
        var counter = manager.meterRegistry()
                .find("controller.runtime.reconcile.errors")
                .tag("controller", controller)
                .counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void namedTargetPortsResolvePerPodAndPodsWithoutThePortAreLeftOutOfIt() {
        service("api", Map.of("app", "api"), port("web", 80, new IntOrString("http")));
        Pod a = runningPod("a", Map.of("app", "api"), "node-a", true, namedPort("http", 8080));
        Pod b = runningPod("b", Map.of("app", "api"), "node-a", true, namedPort("http", 9090));
        runningPod("c", Map.of("app", "api"), "node-b", true, namedPort("metrics", 9100));

        Endpoints ep = awaitEndpoints("api", e -> addresses(e).size() == 2);
        Map<Integer, List<String>> byPort = ep.getSubsets().stream()
                .collect(Collectors.toMap(s -> s.getPorts().get(0).getPort(), s -> s.getAddresses().stream()
                        .map(EndpointAddress::getIp)
                        .toList()));
        assertThat(byPort).containsOnly(Map.entry(8080, List.of(ip(a))), Map.entry(9090, List.of(ip(b))));

        // slices group pods by their resolved ports; the pod without the port gets a slice without ports
        List<EndpointSlice> slices = awaitSlices("api", s -> s.size() == 3);
        Map<String, List<Integer>> portsBySlicePod = slices.stream()
                .collect(Collectors.toMap(
                        s -> s.getEndpoints().get(0).getTargetRef().getName(),
                        s -> s.getPorts() == null
                                ? List.of()
                                : s.getPorts().stream()
                                        .map(io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort::getPort)
                                        .toList()));
        assertThat(portsBySlicePod)
                .containsOnly(Map.entry("a", List.of(8080)), Map.entry("b", List.of(9090)), Map.entry("c", List.of()));
    }

    @Test
    void terminatingPodsLeaveEndpointsAndStayInSlicesAsTerminating() {
        service("web", Map.of("app", "web"), port("", 80, new IntOrString(80)));
        Pod keep = runningPod("keep", Map.of("app", "web"), "node-a", true);
        Pod going = runningPod("going", Map.of("app", "web"), "node-a", true);
        awaitEndpoints("web", e -> addresses(e).size() == 2);
        awaitSlices("web", s -> endpointCount(s) == 2);

        pods().delete("going", DeleteOptions.defaults().withGracePeriodSeconds(30L));

        Endpoints ep = awaitEndpoints("web", e -> addresses(e).size() == 1);
        assertThat(addresses(ep)).containsExactly(ip(keep));
        assertThat(notReady(ep)).isEmpty();
        EndpointSlice slice = awaitSlices(
                        "web", s -> endpoint(s.get(0), "going").getConditions().getTerminating())
                .get(0);
        Endpoint terminating = endpoint(slice, "going");
        assertThat(terminating.getConditions().getReady()).isFalse();
        assertThat(terminating.getConditions().getServing()).isTrue();
        assertThat(endpoint(slice, "keep").getConditions().getReady()).isTrue();

        // gone: out of the slice too (the same slice, updated)
        pods().delete("going", DeleteOptions.defaults().withGracePeriodSeconds(0L));
        awaitSlices("web", s -> endpointCount(s) == 1);
        assertThat(ip(going)).isNotEqualTo(ip(keep));
    }

    @Test
    void publishNotReadyAddressesListsUnreadyPodsAsAddresses() {
        Service svc = new ServiceBuilder(
                        serviceObject("peers", Map.of("app", "db"), port("", 5432, new IntOrString(5432))))
                .editSpec()
                .withClusterIP("None")
                .withPublishNotReadyAddresses(true)
                .endSpec()
                .build();
        client.resources(Service.class).inNamespace(ns).create(svc);
        Pod db = pods().create(new PodBuilder()
                .withNewMetadata()
                .withName("db-0")
                .withLabels(Map.of("app", "db"))
                .endMetadata()
                .withNewSpec()
                .withNodeName("node-a")
                .withHostname("db-0")
                .withSubdomain("peers")
                .addNewContainer()
                .withName("db")
                .withImage("postgres")
                .endContainer()
                .endSpec()
                .build());
        db = setStatus(db, "10.244.200.1", false);

        Endpoints ep = awaitEndpoints("peers", e -> addresses(e).size() == 1);
        assertThat(ep.getMetadata().getLabels()).containsEntry("service.kubernetes.io/headless", "");
        EndpointAddress address = ep.getSubsets().get(0).getAddresses().get(0);
        assertThat(address.getIp()).isEqualTo(ip(db));
        assertThat(address.getHostname()).isEqualTo("db-0"); // its subdomain is the Service
        EndpointSlice slice = awaitSlices("peers", s -> endpointCount(s) == 1).get(0);
        assertThat(slice.getMetadata().getLabels()).containsEntry("service.kubernetes.io/headless", "");
        Endpoint endpoint = slice.getEndpoints().get(0);
        assertThat(endpoint.getHostname()).isEqualTo("db-0");
        assertThat(endpoint.getConditions().getReady()).isTrue();
        assertThat(endpoint.getConditions().getServing()).isFalse();
    }

    @Test
    void aSelectorChangeResyncsAndADeletedServiceTakesItsEndpointsAlong() {
        service("web", Map.of("app", "blue"), port("", 80, new IntOrString(80)));
        Pod blue = runningPod("blue", Map.of("app", "blue"), "node-a", true);
        Pod green = runningPod("green", Map.of("app", "green"), "node-b", true);
        awaitEndpoints("web", e -> addresses(e).equals(List.of(ip(blue))));

        client.resources(Service.class).inNamespace(ns).edit("web", s -> new ServiceBuilder(s)
                .editSpec()
                .withSelector(Map.of("app", "green"))
                .endSpec()
                .build());
        awaitEndpoints("web", e -> addresses(e).equals(List.of(ip(green))));
        awaitSlices(
                "web",
                s -> s.size() == 1
                        && endpointCount(s) == 1
                        && s.get(0)
                                .getEndpoints()
                                .get(0)
                                .getTargetRef()
                                .getName()
                                .equals("green"));

        // a pod relabelled into the Service joins it
        pods().edit("blue", p -> new PodBuilder(p)
                .editMetadata()
                .withLabels(Map.of("app", "green"))
                .endMetadata()
                .build());
        awaitEndpoints("web", e -> addresses(e).size() == 2);

        client.resources(Service.class).inNamespace(ns).delete("web");
        eventually().until(() -> endpoints().get("web").isEmpty());
        // the slices go with their owner (the server's garbage collector)
        eventually().until(() -> slices("web").isEmpty());
    }

    @Test
    void aServiceWithoutSelectorKeepsTheEndpointsItsUserWrote() {
        Service svc = serviceObject("external", Map.of(), port("", 443, new IntOrString(443)));
        svc.getSpec().setSelector(null);
        client.resources(Service.class).inNamespace(ns).create(svc);
        endpoints()
                .create(new io.fabric8.kubernetes.api.model.EndpointsBuilder()
                        .withNewMetadata()
                        .withName("external")
                        .endMetadata()
                        .addNewSubset()
                        .addNewAddress()
                        .withIp("192.0.2.10")
                        .endAddress()
                        .addNewPort()
                        .withPort(443)
                        .endPort()
                        .endSubset()
                        .build());
        // a Service with a selector in the same namespace is synced after the one above: once it has its
        // Endpoints, the selector-less one has been seen too
        service("probe", Map.of("app", "probe"), port("", 80, new IntOrString(80)));
        runningPod("probe", Map.of("app", "probe"), "node-a", true);
        awaitEndpoints("probe", e -> addresses(e).size() == 1);
        assertThat(addresses(endpoints().get("external").orElseThrow())).containsExactly("192.0.2.10");
        assertThat(slices("external")).isEmpty();
    }

    @Test
    void moreThanAHundredEndpointsSpreadOverSlicesAndAChangeTouchesOneSlice() throws Exception {
        // the pods first, on a few threads: the Service then finds them all in one sync
        try (ExecutorService threads = Executors.newFixedThreadPool(4)) {
            List<Future<Pod>> created = new ArrayList<>();
            for (int i = 0; i < 101; i++) {
                String name = "big-" + i;
                String node = i % 2 == 0 ? "node-a" : "node-b";
                created.add(threads.submit(() -> runningPod(name, Map.of("app", "big"), node, true)));
            }
            for (Future<Pod> f : created) {
                f.get();
            }
        }
        // and in the controllers' cache with their IPs, so that the first sync places all 101 (a sync that saw 99
        // would put the last two in a second slice: 99 + 2, as kube does)
        eventually()
                .until(() -> manager.client().listReadOnly(Pod.class, ns).stream()
                                .filter(p ->
                                        p.getStatus() != null && p.getStatus().getPodIP() != null)
                                .count()
                        == 101);
        service("big", Map.of("app", "big"), port("", 80, new IntOrString(80)));
        awaitEndpoints("big", e -> addresses(e).size() == 101);
        List<EndpointSlice> slices = awaitSlices("big", s -> endpointCount(s) == 101);
        assertThat(slices).extracting(s -> s.getEndpoints().size()).containsExactlyInAnyOrder(100, 1);

        // one pod goes: only the slice that held it is written
        EndpointSlice full = slices.stream()
                .filter(s -> s.getEndpoints().size() == 100)
                .findFirst()
                .orElseThrow();
        String gone = full.getEndpoints().get(0).getTargetRef().getName();
        Map<String, String> versions = versions(slices);
        pods().delete(gone, DeleteOptions.defaults().withGracePeriodSeconds(0L));
        List<EndpointSlice> after = awaitSlices("big", s -> endpointCount(s) == 100);
        Map<String, String> versionsAfter = versions(after);
        assertThat(versionsAfter.keySet()).isEqualTo(versions.keySet());
        assertThat(changed(versions, versionsAfter))
                .containsExactly(full.getMetadata().getName());

        // a new pod fills the slice closest to full (99 + 1), not the other one
        runningPod("big-new", Map.of("app", "big"), "node-a", true);
        List<EndpointSlice> refilled = awaitSlices("big", s -> endpointCount(s) == 101);
        assertThat(changed(versionsAfter, versions(refilled)))
                .containsExactly(full.getMetadata().getName());
        assertThat(refilled).extracting(s -> s.getEndpoints().size()).containsExactlyInAnyOrder(100, 1);
    }

    @Test
    void kubectlShowsTheAddresses(@TempDir Path dir) throws Exception {
        Kubectl.assumeInstalled();
        service("web", Map.of("app", "web"), port("", 80, new IntOrString(8080)));
        Pod a = runningPod("a", Map.of("app", "web"), "node-a", true);
        Pod b = runningPod("b", Map.of("app", "web"), "node-b", true);
        awaitEndpoints("web", e -> addresses(e).size() == 2);
        awaitSlices("web", s -> endpointCount(s) == 2);
        Files.writeString(dir.resolve("kubeconfig"), server.kubeconfig());
        Kubectl kubectl = new Kubectl(dir);

        String endpoints = kubectl.run("get", "endpoints", "web", "-n", ns).ok().out();
        List<String> sorted = new ArrayList<>(List.of(ip(a), ip(b)));
        sorted.sort(Comparator.naturalOrder());
        assertThat(endpoints).contains("ENDPOINTS").contains(sorted.get(0) + ":8080," + sorted.get(1) + ":8080");
    }

    // ---- helpers ---------------------------------------------------------------------------------------------

    private ResourceClient<Pod> pods() {
        return client.resources(Pod.class).inNamespace(ns);
    }

    private ResourceClient<Endpoints> endpoints() {
        return client.resources(Endpoints.class).inNamespace(ns);
    }

    private static io.fabric8.kubernetes.api.model.ServicePort port(String name, int port, IntOrString target) {
        return new ServicePortBuilder()
                .withName(name.isEmpty() ? null : name)
                .withPort(port)
                .withTargetPort(target)
                .build();
    }

    private static ContainerPort namedPort(String name, int port) {
        return new ContainerPortBuilder().withName(name).withContainerPort(port).build();
    }

    private Service serviceObject(
            String name, Map<String, String> selector, io.fabric8.kubernetes.api.model.ServicePort... ports) {
        return new ServiceBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(ns)
                .addToLabels("team", "blue")
                .endMetadata()
                .withNewSpec()
                .withSelector(selector)
                .withPorts(ports)
                .endSpec()
                .build();
    }

    private Service service(
            String name, Map<String, String> selector, io.fabric8.kubernetes.api.model.ServicePort... ports) {
        return client.resources(Service.class).inNamespace(ns).create(serviceObject(name, selector, ports));
    }

    private Pod pod(String name, Map<String, String> labels, String node, ContainerPort... ports) {
        return pods().create(new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .withPorts(Arrays.asList(ports))
                .endContainer()
                .endSpec()
                .build());
    }

    private Pod runningPod(
            String name, Map<String, String> labels, String node, boolean ready, ContainerPort... ports) {
        Pod pod = pod(name, labels, node, ports);
        int n = ips.getAndIncrement();
        return setStatus(pod, "10.244." + (1 + n / 250) + "." + (1 + n % 250), ready);
    }

    private Pod setStatus(Pod pod, String ip, boolean ready) {
        Pod current = pods().get(pod.getMetadata().getName()).orElseThrow();
        current.setStatus(new PodStatusBuilder()
                .withPhase("Running")
                .withPodIP(ip)
                .withPodIPs(new PodIPBuilder().withIp(ip).build())
                .withHostIP("10.0.0.1")
                .withConditions(new PodConditionBuilder()
                        .withType("Ready")
                        .withStatus(ready ? "True" : "False")
                        .withLastTransitionTime(
                                clock.now().truncatedTo(ChronoUnit.SECONDS).toString())
                        .build())
                .build());
        return pods().updateStatus(current);
    }

    private void setPhase(Pod pod, String phase) {
        Pod current = pods().get(pod.getMetadata().getName()).orElseThrow();
        current.getStatus().setPhase(phase);
        pods().updateStatus(current);
    }

    private static String ip(Pod pod) {
        return pod.getStatus().getPodIP();
    }

    private Endpoints awaitEndpoints(String name, java.util.function.Predicate<Endpoints> condition) {
        List<Endpoints> seen = new ArrayList<>(1);
        eventually().until(() -> {
            seen.clear();
            endpoints().get(name).ifPresent(seen::add);
            return !seen.isEmpty() && condition.test(seen.get(0));
        });
        return seen.get(0);
    }

    private List<EndpointSlice> slices(String service) {
        return client.resources(EndpointSlice.class)
                .inNamespace(ns)
                .list(ListOptions.builder()
                        .labelSelector("kubernetes.io/service-name=" + service)
                        .build())
                .items();
    }

    private List<EndpointSlice> awaitSlices(
            String service, java.util.function.Predicate<List<EndpointSlice>> condition) {
        List<List<EndpointSlice>> seen = new ArrayList<>(1);
        eventually().until(() -> {
            seen.clear();
            seen.add(slices(service));
            return !seen.get(0).isEmpty() && condition.test(seen.get(0));
        });
        return seen.get(0);
    }

    private static int endpointCount(List<EndpointSlice> slices) {
        return slices.stream()
                .mapToInt(s -> s.getEndpoints() == null ? 0 : s.getEndpoints().size())
                .sum();
    }

    private static Endpoint endpoint(EndpointSlice slice, String pod) {
        return slice.getEndpoints().stream()
                .filter(e -> e.getTargetRef().getName().equals(pod))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no endpoint of pod " + pod + " in " + slice));
    }

    private static List<String> addresses(Endpoints ep) {
        return flat(ep, EndpointSubset::getAddresses);
    }

    private static List<String> notReady(Endpoints ep) {
        return flat(ep, EndpointSubset::getNotReadyAddresses);
    }

    private static List<String> flat(Endpoints ep, Function<EndpointSubset, List<EndpointAddress>> part) {
        if (ep.getSubsets() == null) {
            return List.of();
        }
        return ep.getSubsets().stream()
                .flatMap(s -> part.apply(s) == null ? java.util.stream.Stream.empty() : part.apply(s).stream())
                .map(EndpointAddress::getIp)
                .distinct()
                .sorted()
                .toList();
    }

    private static Map<String, String> versions(List<EndpointSlice> slices) {
        return slices.stream().collect(Collectors.toMap(s -> s.getMetadata().getName(), s -> s.getMetadata()
                .getResourceVersion()));
    }

    private static List<String> changed(Map<String, String> before, Map<String, String> after) {
        return after.entrySet().stream()
                .filter(e -> !e.getValue().equals(before.get(e.getKey())))
                .map(Map.Entry::getKey)
                .toList();
    }
}
