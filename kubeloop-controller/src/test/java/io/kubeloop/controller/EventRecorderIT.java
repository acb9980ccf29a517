package io.kubeloop.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.apiserver.fault.ActiveFault;
import io.kubeloop.apiserver.fault.Failure;
import io.kubeloop.apiserver.fault.Faults;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.testkit.KubeloopTest;
import io.kubeloop.testkit.TestNamespace;
import io.kubeloop.testsupport.Kubectl;
import io.kubeloop.testsupport.TestThreads;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link EventRecorder} over real HTTP against the embedded API server, with the manager on a {@link FakeClock}: the
 * Event's fields, client-go's correlation (dedup, aggregation, spam filter), the bounded queue, retries on the clock,
 * shutdown, and what kubectl shows.
 */
@KubeloopTest(faults = true)
class EventRecorderIT {

    private static final String COMPONENT = "test-controller";

    private final FakeClock clock = new FakeClock();
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private KubernetesClient client;
    private Manager manager;
    private EventRecorder recorder;

    @BeforeEach
    void setUp(KubernetesClient client) {
        this.client = client;
        manager = Manager.builder(client)
                .metricsPort(0)
                .healthProbePort(0)
                .clock(clock)
                .meterRegistry(registry)
                .build();
        recorder = manager.eventRecorder(COMPONENT);
    }

    private boolean closed;

    @AfterEach
    void tearDown(Faults faults) {
        faults.clear();
        if (!closed) {
            manager.close();
        }
    }

    @Test
    void anEventIsCreatedWithClientGosFields(@TestNamespace String ns) {
        ConfigMap cm = configMap("settings");

        recorder.event(cm, EventRecorder.WARNING, "BadValue", "mode must be fast or safe");

        Event e = awaitEvents("settings", 1).get(0);
        assertThat(e.getMetadata().getNamespace()).isEqualTo(ns);
        assertThat(e.getMetadata().getName()).matches("settings\\.[0-9a-f]{16}");
        ObjectReference o = e.getInvolvedObject();
        assertThat(o.getKind()).isEqualTo("ConfigMap");
        assertThat(o.getApiVersion()).isEqualTo("v1");
        assertThat(o.getName()).isEqualTo("settings");
        assertThat(o.getNamespace()).isEqualTo(ns);
        assertThat(o.getUid()).isEqualTo(cm.getMetadata().getUid()).isNotEmpty();
        assertThat(o.getResourceVersion()).isEqualTo(cm.getMetadata().getResourceVersion());
        assertThat(e.getType()).isEqualTo("Warning");
        assertThat(e.getReason()).isEqualTo("BadValue");
        assertThat(e.getMessage()).isEqualTo("mode must be fast or safe");
        assertThat(e.getCount()).isEqualTo(1);
        assertThat(e.getFirstTimestamp()).isEqualTo("2026-01-01T00:00:00Z");
        assertThat(e.getLastTimestamp()).isEqualTo("2026-01-01T00:00:00Z");
        assertThat(e.getSource().getComponent()).isEqualTo(COMPONENT);
        assertThat(e.getSource().getHost()).isNull();
        assertThat(e.getReportingComponent()).isEqualTo(COMPONENT);
        TestThreads.eventually().until(() -> written("create") == 1);
    }

    @Test
    void anEventAboutAClusterScopedObjectGoesToTheDefaultNamespace(@TestNamespace String ns) {
        Namespace namespace = client.resources(Namespace.class).get(ns).orElseThrow();

        recorder.eventf(namespace, EventRecorder.NORMAL, "Inspected", "%d objects in %s", 3, ns);

        var defaults = client.resources(Event.class).inNamespace("default");
        List<Event> about = TestThreads.eventually()
                .until(
                        () -> defaults.list().items().stream()
                                .filter(e -> ns.equals(e.getInvolvedObject().getName()))
                                .toList(),
                        l -> l.size() == 1);
        Event e = about.get(0);
        try {
            assertThat(e.getInvolvedObject().getKind()).isEqualTo("Namespace");
            assertThat(e.getInvolvedObject().getNamespace()).isNull();
            assertThat(e.getMessage()).isEqualTo("3 objects in " + ns);
        } finally {
            defaults.delete(e.getMetadata().getName());
        }
    }

    @Test
    void aRepeatedEventIncrementsTheCountOfOneEvent() {
        ConfigMap cm = configMap("flaky");

        recorder.event(cm, EventRecorder.WARNING, "BackOff", "restarting");
        clock.step(Duration.ofMinutes(1));
        recorder.event(cm, EventRecorder.WARNING, "BackOff", "restarting");
        clock.step(Duration.ofMinutes(1));
        recorder.event(cm, EventRecorder.WARNING, "BackOff", "restarting");

        Event e = awaitCount("flaky", 3);
        assertThat(e.getFirstTimestamp()).isEqualTo("2026-01-01T00:00:00Z");
        assertThat(e.getLastTimestamp()).isEqualTo("2026-01-01T00:02:00Z");
        // counted once the answer is in, which may be just after the test sees the Event
        TestThreads.eventually().until(() -> written("create") == 1 && written("patch") == 2);

        // deleted meanwhile: the patch finds 404, and the event is created again under its name, counting on
        client.resources(Event.class).delete(e.getMetadata().getName());
        recorder.event(cm, EventRecorder.WARNING, "BackOff", "restarting");
        Event again = TestThreads.eventually()
                .until(() -> client.resources(Event.class).get(e.getMetadata().getName()), o -> o.isPresent())
                .orElseThrow();
        assertThat(again.getCount()).isEqualTo(4);
        TestThreads.eventually().until(() -> written("create") == 2 && written("patch") == 2);
    }

    @Test
    void similarEventsAreCombinedFromTheTenthMessageOn() {
        ConfigMap cm = configMap("noisy");

        for (int i = 1; i <= 11; i++) {
            recorder.event(cm, EventRecorder.WARNING, "ProbeFailed", "probe " + i + " failed");
        }

        TestThreads.eventually().until(() -> written("create") + written("patch") == 11);
        List<Event> events = awaitEvents("noisy", 10);
        Set<String> messages = events.stream().map(Event::getMessage).collect(Collectors.toSet());
        for (int i = 1; i <= 9; i++) {
            assertThat(messages).contains("probe " + i + " failed");
        }
        Event combined = events.stream()
                .filter(e -> e.getMessage().startsWith("(combined from similar events): "))
                .findFirst()
                .orElseThrow();
        assertThat(combined.getMessage()).isEqualTo("(combined from similar events): probe 11 failed");
        assertThat(combined.getCount()).isEqualTo(2);
        assertThat(combined.getReason()).isEqualTo("ProbeFailed");
        assertThat(events).filteredOn(e -> e.getCount() == 1).hasSize(9);
    }

    @Test
    void theSpamFilterDropsBeyond25EventsForOneObjectButNotForAnother() {
        ConfigMap a = configMap("a");
        ConfigMap b = configMap("b");

        for (int i = 0; i < 30; i++) { // different reasons: neither counted nor combined
            recorder.event(a, EventRecorder.NORMAL, "Step" + i, "step " + i);
        }
        for (int i = 0; i < 3; i++) {
            recorder.event(b, EventRecorder.NORMAL, "Step" + i, "step " + i);
        }

        TestThreads.eventually().until(() -> dropped("spam-filter") == 5 && written("create") == 28);
        assertThat(awaitEvents("a", 25)).extracting(Event::getReason).doesNotContain("Step25", "Step29");
        assertThat(awaitEvents("b", 3)).hasSize(3);

        // one token every 5 minutes
        clock.step(Duration.ofMinutes(5));
        recorder.event(a, EventRecorder.NORMAL, "Step30", "step 30");
        recorder.event(a, EventRecorder.NORMAL, "Step31", "step 31");
        TestThreads.eventually().until(() -> dropped("spam-filter") == 6 && written("create") == 29);
        assertThat(awaitEvents("a", 26)).extracting(Event::getReason).contains("Step30");
    }

    @Test
    void aFullQueueDropsWithoutBlockingTheCaller(Faults faults) {
        ConfigMap cm = configMap("busy");
        faults.partition(Duration.ofMinutes(10)); // the writer's first request hangs

        recorder.event(cm, EventRecorder.NORMAL, "First", "taken by the writer");
        TestThreads.eventually().until(() -> queueDepth() == 0);
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            for (int i = 0; i < 1050; i++) {
                recorder.event(cm, EventRecorder.NORMAL, "Busy", "event " + i);
            }
        });

        assertThat(queueDepth()).isEqualTo(1000);
        assertThat(dropped("queue-full")).isEqualTo(50);
        faults.clear();
    }

    @Test
    void failedWritesAreRetriedOnTheClock(Faults faults) {
        ConfigMap cm = configMap("retried");
        faults.fail(Failure.status(503).count(3).resource("events").verb("create"));

        recorder.event(cm, EventRecorder.NORMAL, "Retried", "third time lucky");

        for (int remaining = 2; remaining >= 0; remaining--) {
            int expected = remaining;
            // the attempt failed and the writer waits on the clock; nothing retries until the clock moves
            TestThreads.eventually().until(() -> remainingFailures(faults) == expected && clock.hasWaiters());
            assertThat(client.resources(Event.class).list().items()).isEmpty();
            clock.step(Duration.ofSeconds(10));
        }
        assertThat(awaitEvents("retried", 1).get(0).getMessage()).isEqualTo("third time lucky");
        assertThat(dropped("retries-exhausted")).isZero();
    }

    @Test
    void anEventIsDroppedAfter12Tries(Faults faults) {
        ConfigMap cm = configMap("doomed");
        faults.fail(Failure.status(500).count(20).resource("events").verb("create"));

        recorder.event(cm, EventRecorder.NORMAL, "Doomed", "never written");

        for (int attempt = 1; attempt < 12; attempt++) {
            int failed = attempt;
            TestThreads.eventually().until(() -> remainingFailures(faults) == 20 - failed && clock.hasWaiters());
            clock.step(Duration.ofSeconds(10));
        }
        TestThreads.eventually().until(() -> dropped("retries-exhausted") == 1);
        assertThat(remainingFailures(faults)).isEqualTo(8); // 12 tries, no 13th
        assertThat(clock.hasWaiters()).isFalse();
    }

    @Test
    void aRefusedEventIsNotRetried() {
        ConfigMap ghost = new ConfigMapBuilder()
                .withNewMetadata()
                .withName("ghost")
                .withNamespace("no-such-namespace")
                .endMetadata()
                .build();

        recorder.event(ghost, EventRecorder.NORMAL, "Haunting", "in a namespace that does not exist");

        TestThreads.eventually().until(() -> dropped("rejected") == 1);
        assertThat(clock.hasWaiters()).isFalse();
        assertThat(written("create")).isZero();
    }

    @Test
    void invalidEventsAreDroppedWithoutThrowing() {
        ConfigMap cm = configMap("valid");

        recorder.event(cm, "Error", "Bad", "not a type");
        recorder.event(null, EventRecorder.NORMAL, "Bad", "no object");
        recorder.eventf(cm, EventRecorder.NORMAL, "Bad", "%d", "not a number");
        recorder.event(new ConfigMap(), EventRecorder.NORMAL, "Bad", "no name");
        recorder.event(cm, EventRecorder.NORMAL, "Good", "fine");

        awaitEvents("valid", 1);
        assertThat(dropped("invalid")).isEqualTo(4);
        assertThat(client.resources(Event.class).list().items())
                .extracting(Event::getReason)
                .containsOnly("Good");
    }

    @Test
    void aControllerThatGivesUpOnAKeyRecordsAWarningEvent() throws Exception {
        manager.newControllerFor(ConfigMap.class).named("picky").maxRetries(0).complete(request -> {
            if (request.name().equals("given-up")) {
                throw new IllegalStateException("always fails");
            }
            return Result.done();
        });
        manager.informerFactory().start();
        TestThreads.eventually()
                .until(() ->
                        manager.informerFactory().informerFor(ConfigMap.class).hasSynced());
        manager.start();

        configMap("given-up");

        Event e = awaitEvents("given-up", 1).get(0);
        assertThat(e.getType()).isEqualTo("Warning");
        assertThat(e.getReason()).isEqualTo("ReconcileRetriesExhausted");
        assertThat(e.getMessage()).contains("given-up", "picky");
        assertThat(e.getSource().getComponent()).isEqualTo("picky");
    }

    @Test
    void recordersAreSharedPerComponentAndCheckTheName() {
        assertThat(manager.eventRecorder(COMPONENT)).isSameAs(recorder);
        assertThat(manager.eventRecorder("example.com/other")).isNotSameAs(recorder);
        assertThatThrownBy(() -> manager.eventRecorder("not a name"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"not a name\" must be 1 to 253 characters without blanks");
    }

    @Test
    void closeWritesWhatIsQueuedAndStopsTheWriter(@TempDir Path dir) throws Exception {
        ConfigMap cm = configMap("last-words");
        assertThat(threadDump(dir)).contains("\"kubeloop-events\""); // the check below can see the writer
        recorder.event(cm, EventRecorder.NORMAL, "Stopping", "shutting down");

        manager.close();
        closed = true;

        assertThat(about("last-words")).hasSize(1); // written before close returned
        assertThat(threadDump(dir)).doesNotContain("\"kubeloop-events\"");
        recorder.event(cm, EventRecorder.NORMAL, "TooLate", "after close");
        manager.eventRecorder(COMPONENT).event(cm, EventRecorder.NORMAL, "TooLate", "after close");
        assertThat(dropped("shutdown")).isEqualTo(2);
        assertThat(threadDump(dir)).doesNotContain("\"kubeloop-events\""); // asking for a recorder started nothing
    }

    @Test
    void kubectlShowsTheEvents(EmbeddedApiServer server, @TestNamespace String ns, @TempDir Path dir) throws Exception {
        Kubectl.assumeInstalled();
        server.writeKubeconfig(dir.resolve("kubeconfig"));
        Kubectl kubectl = new Kubectl(dir);
        ConfigMap cm = configMap("shown");
        recorder.event(cm, EventRecorder.WARNING, "BackOff", "restarting failed container");
        recorder.event(cm, EventRecorder.WARNING, "BackOff", "restarting failed container");
        awaitCount("shown", 2);

        String events =
                kubectl.run("get", "events", "-n", ns, "-o", "wide").ok().out();
        assertThat(events).contains("Warning", "BackOff", "configmap/shown", "restarting failed container", COMPONENT);
        String line =
                events.lines().filter(l -> l.contains("BackOff")).findFirst().orElseThrow();
        assertThat(line.split("\\s+")).contains("2"); // COUNT

        String described =
                kubectl.run("describe", "configmap", "shown", "-n", ns).ok().out();
        assertThat(described).contains("Events:", "BackOff", "restarting failed container");
    }

    @Test
    void theDocumentedMeterTableListsTheEventMeters() throws Exception {
        io.kubeloop.testsupport.MeterTable.assertDocumented(
                io.kubeloop.testsupport.MeterTable.read("docs/events.md"), onlyEventMeters());
    }

    // --- helpers

    /** Every thread of the JVM, virtual ones included (which {@code Thread.getAllStackTraces()} leaves out). */
    private static String threadDump(Path dir) throws java.io.IOException {
        Path file = dir.resolve("threads-" + System.nanoTime() + ".txt");
        java.lang.management.ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class)
                .dumpThreads(file.toString(), com.sun.management.HotSpotDiagnosticMXBean.ThreadDumpFormat.TEXT_PLAIN);
        return java.nio.file.Files.readString(file);
    }

    private PrometheusMeterRegistry onlyEventMeters() {
        PrometheusMeterRegistry own = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (Manager m = Manager.builder(client)
                .metricsPort(0)
                .healthProbePort(0)
                .clock(clock)
                .meterRegistry(own)
                .build()) {
            m.eventRecorder(COMPONENT);
            own.getMeters().stream()
                    .filter(meter -> !meter.getId().getName().startsWith("kubeloop.events."))
                    .forEach(own::remove);
        }
        return own;
    }

    private ConfigMap configMap(String name) {
        return client.resources(ConfigMap.class)
                .create(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .build());
    }

    /** The Events about {@code name} in the test's namespace. */
    private List<Event> about(String name) {
        return client.resources(Event.class).list().items().stream()
                .filter(e -> name.equals(e.getInvolvedObject().getName()))
                .sorted(Comparator.comparing(e -> e.getMetadata().getName()))
                .toList();
    }

    /** The Events about {@code name}, once there are exactly {@code n}. */
    private List<Event> awaitEvents(String name, int n) {
        return TestThreads.eventually().until(() -> about(name), l -> l.size() == n);
    }

    /** The one Event about {@code name}, once its count is {@code count}. */
    private Event awaitCount(String name, int count) {
        return TestThreads.eventually()
                .until(() -> about(name), l -> l.size() == 1 && l.get(0).getCount() == count)
                .get(0);
    }

    private double dropped(String reason) {
        return registry.get("kubeloop.events.dropped")
                .tag("component", COMPONENT)
                .tag("reason", reason)
                .counter()
                .count();
    }

    private double written(String verb) {
        return registry.get("kubeloop.events.written")
                .tag("component", COMPONENT)
                .tag("verb", verb)
                .counter()
                .count();
    }

    private double queueDepth() {
        return registry.get("kubeloop.events.queue.depth").gauge().value();
    }

    private static int remainingFailures(Faults faults) {
        return faults.active().stream()
                .filter(f -> f.fault().equals("fail"))
                .map(ActiveFault::settings)
                .mapToInt(s -> ((Number) s.get("remainingCount")).intValue())
                .findFirst()
                .orElse(0);
    }
}
