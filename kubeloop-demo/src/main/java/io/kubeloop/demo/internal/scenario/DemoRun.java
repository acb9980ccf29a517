package io.kubeloop.demo.internal.scenario;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionCondition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.errors.KubernetesApiException;
import io.kubeloop.client.resource.DeleteOptions;
import io.kubeloop.client.resource.ListOptions;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.client.transport.RateLimiter;
import io.kubeloop.clock.Clock;
import io.kubeloop.cluster.EmbeddedCluster;
import io.kubeloop.demo.Demo;
import io.kubeloop.demo.DemoReport;
import io.kubeloop.demo.PodGuardian;
import io.kubeloop.demo.PodSet;
import io.kubeloop.demo.internal.incident.IncidentTracker;
import io.kubeloop.demo.internal.incident.SeedMetrics;
import io.kubeloop.demo.internal.view.Frame;
import io.kubeloop.demo.internal.view.LiveView;
import io.kubeloop.informer.InformerHealth;
import io.kubeloop.informer.InformerKey;
import io.kubeloop.informer.SharedIndexInformer;
import io.kubeloop.informer.audit.AuditResult;
import io.kubeloop.informer.audit.CacheAuditor;
import io.kubeloop.informer.reflector.ListerWatchers;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of the demo: cluster, operators, observer, workload, scenario, convergence, audit, report.
 *
 * <p>Invariants: every wait is bounded (a run that cannot converge ends with a failed report, a setup that cannot
 * start with an exception); everything started is closed in {@code finally}, in reverse order, whatever happened
 * (an interrupt — Ctrl-C — included); the scenario's steps run on the calling thread at their cluster-time offsets,
 * except what must go on while later steps run (the failover's wait for a new leader, the noisy neighbour's
 * writers), which runs on named virtual threads joined before the end.
 */
public final class DemoRun {

    private static final Logger log = LoggerFactory.getLogger(DemoRun.class);

    static final String NAMESPACE = "demo";
    static final String NOISY_NAMESPACE = "noisy";
    static final String POD_SET = "web";
    static final String DEPLOYMENT = "api";
    static final int DEPLOYMENT_REPLICAS = 4;
    static final int NOISY_WRITERS = 8;
    static final int NOISY_WRITES = 2_000;
    /** How much longer than planned (cluster time) a failed node stays down when its pods are not evicted yet. */
    static final Duration EVICTION_GRACE = Duration.ofSeconds(60);
    /** Real time the noisy neighbour's writers may take at least, whatever the speed. */
    static final Duration NOISY_LIMIT = Duration.ofSeconds(15);
    /** Real time: how long setup steps and the final convergence may take. */
    static final Duration SETUP_TIMEOUT = Duration.ofSeconds(60);

    static final Duration CONVERGE_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration POLL = Duration.ofMillis(50);

    private final Demo.Settings settings;
    private final Clock clock;
    private final double speed;
    private final SplittableRandom random;

    private final List<OperatorInstance> instances = new CopyOnWriteArrayList<>();
    private final Map<String, TrackerListener> listeners = new ConcurrentHashMap<>();
    private final List<DemoReport.Fault> faults = new CopyOnWriteArrayList<>();
    /** Faults in force, for the view: text → when it ends ({@code clock.nanoTime()}), or Long.MIN_VALUE for never. */
    private final Map<String, Long> active = new ConcurrentSkipListMap<>();

    private final List<Thread> background = new CopyOnWriteArrayList<>();
    private final ReentrantLock randomLock = new ReentrantLock();

    private EmbeddedCluster cluster;
    private KubernetesClient admin;
    private Observer observer;
    private LiveView view;
    private volatile IncidentTracker tracker;
    private volatile long startNanos;
    private volatile String step = "starting";
    private volatile String stoppedNode;
    private final AtomicInteger nextInstance = new AtomicInteger();

    /** Guards the view's previous reconcile sample: frames come from the view's thread, and the last from close. */
    private final ReentrantLock sampleLock = new ReentrantLock();

    private double lastReconciles = -1;
    private long lastSampleNanos;

    public DemoRun(Demo.Settings settings) {
        this.settings = settings;
        this.clock = settings.clock();
        this.speed = settings.speed();
        this.random = new SplittableRandom(settings.seed());
    }

    public DemoReport run() throws InterruptedException {
        Scenario scenario = Scenarios.plan(settings.scenario(), settings.duration(), speed, settings.nodes());
        long runStart = clock.nanoTime();
        view = LiveView.create(settings.out(), settings.terminal(), settings.quiet());
        try {
            setUp();
            view.start(this::frame, Duration.ofMillis(250));
            tracker = new IncidentTracker(clock, clock.nanoTime(), speed);
            observer.track(tracker);
            listeners.forEach((name, l) -> l.attach(tracker.listenerFor(name)));
            line("scenario " + scenario.name() + ": " + Scenarios.seconds(scenario.length()) + " of cluster time ("
                    + Scenarios.seconds(settings.duration()) + " at speed " + number(speed) + "), "
                    + scenario.steps().size() + " steps, seed " + settings.seed());
            startNanos = clock.nanoTime();
            for (Step s : scenario.steps()) {
                sleepUntil(s.at());
                play(s);
            }
            step = "scenario ending";
            sleepUntil(scenario.length());
            joinBackground();
            return finish(scenario, runStart);
        } finally {
            closeAll();
        }
    }

    // ---------------------------------------------------------------------------------------------------- setup

    private void setUp() throws InterruptedException {
        long t = clock.nanoTime();
        cluster = EmbeddedCluster.builder()
                .apiServer(
                        EmbeddedApiServer.builder().port(0).faultInjection(true).faultSeed(settings.seed()))
                .nodes(settings.nodes())
                .speed(speed)
                .clock(clock)
                .start();
        line("cluster: " + settings.nodes() + " node" + (settings.nodes() == 1 ? "" : "s") + " Ready in " + elapsed(t)
                + " (speed " + number(speed) + ", API server "
                + cluster.apiServer().url() + ")");
        admin = KubernetesClient.builder(
                        ClientConfig.builder().server(cluster.apiServer().url()).build())
                .clock(clock)
                .rateLimiter(RateLimiter.unlimited())
                .userAgent("kubeloop-demo")
                .build();
        t = clock.nanoTime();
        installCrd();
        for (String ns : List.of(NAMESPACE, OperatorInstance.LEASE_NAMESPACE, NOISY_NAMESPACE)) {
            admin.resources(Namespace.class)
                    .create(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(ns)
                            .endMetadata()
                            .build());
        }
        line("PodSet CRD " + PodSet.PLURAL + "." + PodSet.GROUP + " Established in " + elapsed(t));

        observer = new Observer(admin, cluster, NAMESPACE, POD_SET, clock);
        observer.start(SETUP_TIMEOUT);

        t = clock.nanoTime();
        startInstance();
        startInstance();
        OperatorInstance leader = awaitLeader(SETUP_TIMEOUT)
                .orElseThrow(() -> new IllegalStateException(
                        "no operator instance became the leader within " + SETUP_TIMEOUT.toSeconds() + " s"));
        line("operator: " + leader.name() + " is the leader, "
                + instances.stream()
                        .filter(i -> i != leader)
                        .map(OperatorInstance::name)
                        .collect(Collectors.joining(", "))
                + " stands by (" + elapsed(t) + ")");

        t = clock.nanoTime();
        admin.resources(PodSet.class).inNamespace(NAMESPACE).create(podSet());
        admin.resources(Deployment.class).inNamespace(NAMESPACE).create(deployment());
        step = "PodSet converging";
        Optional<String> notYet = awaitConverged(SETUP_TIMEOUT);
        if (notYet.isPresent()) {
            throw new IllegalStateException("PodSet " + NAMESPACE + "/" + POD_SET + " did not converge within "
                    + SETUP_TIMEOUT.toSeconds() + " s before the scenario: " + notYet.get());
        }
        line("PodSet " + NAMESPACE + "/" + POD_SET + ": " + settings.replicas() + "/" + settings.replicas()
                + " Running in " + elapsed(t));
    }

    private void installCrd() throws InterruptedException {
        CustomResourceDefinition crd = PodGuardian.crd();
        admin.resources(CustomResourceDefinition.class).create(crd);
        String name = crd.getMetadata().getName();
        boolean served = await(SETUP_TIMEOUT, () -> {
            CustomResourceDefinition c =
                    admin.resources(CustomResourceDefinition.class).get(name).orElse(null);
            if (c == null || c.getStatus() == null || c.getStatus().getConditions() == null) {
                return false;
            }
            boolean established = false;
            for (CustomResourceDefinitionCondition cond : c.getStatus().getConditions()) {
                established |= "Established".equals(cond.getType()) && "True".equals(cond.getStatus());
            }
            if (!established) {
                return false;
            }
            try {
                admin.resources(PodSet.class).inNamespace("default").list();
                return true;
            } catch (KubernetesApiException e) {
                return false; // not served yet
            }
        });
        if (!served) {
            throw new IllegalStateException("the PodSet CRD " + name + " was not Established and served within "
                    + SETUP_TIMEOUT.toSeconds() + " s");
        }
    }

    private OperatorInstance startInstance() {
        String name = "guardian-" + (char) ('a' + nextInstance.getAndIncrement());
        TrackerListener listener = new TrackerListener();
        IncidentTracker t = tracker;
        if (t != null) {
            listener.attach(t.listenerFor(name));
        }
        listeners.put(name, listener);
        InetSocketAddress server =
                new InetSocketAddress("127.0.0.1", cluster.apiServer().port());
        try {
            OperatorInstance instance = OperatorInstance.start(
                    name, server, clock, speed, Duration.ofMillis((long) (60_000 / speed)), listener);
            instances.add(instance);
            return instance;
        } catch (IOException e) {
            throw new UncheckedIOException("operator " + name + ": cannot open its network link", e);
        }
    }

    private PodSet podSet() {
        PodTemplateSpec template = new PodTemplateSpecBuilder()
                .withNewMetadata()
                .addToLabels("app", POD_SET)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("web")
                .withImage("nginx:1.27")
                .endContainer()
                .withTolerations(
                        new TolerationBuilder()
                                .withKey("node.kubernetes.io/not-ready")
                                .withOperator("Exists")
                                .withEffect("NoExecute")
                                .withTolerationSeconds(30L)
                                .build(),
                        new TolerationBuilder()
                                .withKey("node.kubernetes.io/unreachable")
                                .withOperator("Exists")
                                .withEffect("NoExecute")
                                .withTolerationSeconds(30L)
                                .build())
                .endSpec()
                .build();
        PodSet.Spec spec = new PodSet.Spec();
        spec.setReplicas(settings.replicas());
        spec.setTemplate(template);
        PodSet ps = new PodSet();
        ps.setMetadata(new ObjectMetaBuilder()
                .withName(POD_SET)
                .withNamespace(NAMESPACE)
                .build());
        ps.setSpec(spec);
        return ps;
    }

    private static Deployment deployment() {
        return new DeploymentBuilder()
                .withNewMetadata()
                .withName(DEPLOYMENT)
                .withNamespace(NAMESPACE)
                .endMetadata()
                .withNewSpec()
                .withReplicas(DEPLOYMENT_REPLICAS)
                .withNewSelector()
                .addToMatchLabels("app", DEPLOYMENT)
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", DEPLOYMENT)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("api")
                .withImage("nginx:1.27")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }

    // ---------------------------------------------------------------------------------------------------- steps

    private void play(Step s) throws InterruptedException {
        step = s.kind().faultName();
        switch (s.kind()) {
            case KILL_PODS -> fault("kill-pods", "deleted " + killPods(s.pods()));
            case NODE_STOP -> nodeStop(s);
            case NODE_START -> awaitEvictionThenStart();
            case NETWORK_CUT -> networkCut(s);
            case NETWORK_RESTORE -> networkRestore();
            case COMPACT -> compact();
            case LEADER_KILL -> leaderKill();
            case NOISY_NEIGHBOUR -> noisyNeighbour(s);
        }
        step = "after " + s.kind().faultName();
    }

    /** Kills {@code count} random live pods of the PodSet; reports each to the tracker before deleting it. */
    private String killPods(int count) {
        List<Pod> live = observer.livePods();
        List<Pod> victims = new ArrayList<>();
        randomLock.lock();
        try {
            List<Pod> pool = new ArrayList<>(live);
            while (victims.size() < count && !pool.isEmpty()) {
                victims.add(pool.remove(random.nextInt(pool.size())));
            }
        } finally {
            randomLock.unlock();
        }
        if (victims.isEmpty()) {
            return "nothing (no live pod)";
        }
        List<String> names = new ArrayList<>();
        for (Pod pod : victims) {
            String name = pod.getMetadata().getName();
            String uid = pod.getMetadata().getUid();
            String node = pod.getSpec().getNodeName();
            tracker.podGone(NAMESPACE, name, uid, POD_SET, node, "killed", clock.nanoTime());
            try {
                admin.resources(Pod.class)
                        .inNamespace(NAMESPACE)
                        .delete(
                                name,
                                DeleteOptions.defaults()
                                        .withGracePeriodSeconds(0L)
                                        .withPreconditions(uid, null));
                names.add(name + " (" + Observer.nodeOf(pod) + ")");
            } catch (KubernetesApiException e) {
                names.add(name + " (already gone: " + e.getMessage() + ")");
            }
        }
        return String.join(", ", names);
    }

    private void nodeStop(Step s) {
        String node = observer.busiestNode();
        long onIt = observer.livePods().stream()
                .filter(p -> node.equals(p.getSpec().getNodeName()))
                .count();
        cluster.node(node).stop();
        stoppedNode = node;
        active.put(node + " stopped", clock.nanoTime() + wall(s.span()).toNanos());
        fault(
                "node-failure",
                node + "'s kubelet stopped (" + onIt + " pods of " + POD_SET
                        + " on it): NotReady after 50 s, evicted 30 s later; back in " + Scenarios.seconds(s.span()));
    }

    /**
     * The node's restore, once its pods were evicted: on a loaded machine the cluster's timers may run late, and a
     * node back before its eviction would leave the story without it. Waits at most {@link #EVICTION_GRACE} of cluster
     * time (and a second of real time) for no live pod of the PodSet to be left on the node.
     */
    private void awaitEvictionThenStart() throws InterruptedException {
        String node = stoppedNode;
        if (node == null) {
            return;
        }
        boolean evicted = await(wall(EVICTION_GRACE).plusSeconds(1), () -> observer.livePods().stream()
                .noneMatch(p -> node.equals(p.getSpec().getNodeName())));
        if (!evicted) {
            line("node-failure: " + node + "'s pods were not evicted in time; starting it anyway");
        }
        nodeStart();
    }

    private void nodeStart() {
        String node = stoppedNode;
        if (node == null) {
            return;
        }
        cluster.node(node).start();
        stoppedNode = null;
        active.remove(node + " stopped");
        fault("node-restore", node + "'s kubelet started again: its Terminating pods finish");
    }

    private void networkCut(Step s) {
        List<OperatorInstance> alive = alive();
        alive.forEach(i -> i.link().cut());
        active.put("network-cut", clock.nanoTime() + wall(s.span()).toNanos());
        fault("network-cut", names(alive) + " cut off from the API server for " + Scenarios.seconds(s.span()));
    }

    private void networkRestore() {
        List<OperatorInstance> alive = alive();
        alive.forEach(i -> i.link().restore());
        active.remove("network-cut");
        fault("network-restore", names(alive) + " reconnected");
    }

    private void compact() {
        long revision = cluster.apiServer().faults().compact();
        List<OperatorInstance> alive = alive();
        alive.forEach(i -> i.link().reset());
        fault(
                "compaction",
                "watch history compacted (now starts at revision " + revision + "), watches of " + names(alive)
                        + " dropped: they resume at an expired resourceVersion, 410, relist");
    }

    private void leaderKill() throws InterruptedException {
        LeaseTimingsView lease = LeaseTimingsView.of(speed);
        OperatorInstance leader = awaitLeader(lease.bound()).orElse(null);
        if (leader == null) {
            fault(
                    "leader-kill",
                    "no leader to kill: none within " + lease.bound().toMillis() + " ms");
            return;
        }
        long killedAt = clock.nanoTime();
        leader.kill();
        active.put(leader.name() + " killed", Long.MIN_VALUE);
        fault(
                "leader-kill",
                leader.name() + " killed (its lease is not released: the standby waits for it to" + " expire)");
        Thread waiter = Thread.ofVirtual().name("demo-failover").unstarted(() -> {
            try {
                Optional<OperatorInstance> next = awaitLeader(lease.bound());
                if (next.isEmpty()) {
                    line("failover: no standby took over within "
                            + lease.bound().toMillis() + " ms");
                    return;
                }
                long took = clock.nanoTime() - killedAt;
                active.remove(leader.name() + " killed");
                line("failover: " + next.get().name() + " took over after " + millis(took) + " ("
                        + Scenarios.seconds(Duration.ofNanos((long) (took * speed))) + " of cluster time)");
                OperatorInstance standby = startInstance();
                line("failover: " + standby.name() + " started as the new standby");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                log.warn("demo: the failover's follow-up failed", e);
                line("failover: " + e.getMessage());
            }
        });
        background.add(waiter);
        waiter.start();
    }

    private void noisyNeighbour(Step s) throws InterruptedException {
        // the writers go on until their ~2,000 writes are done, or the phase's span (at least NOISY_LIMIT) is over
        Duration limit = wall(s.span()).compareTo(NOISY_LIMIT) < 0 ? NOISY_LIMIT : wall(s.span());
        long deadline = clock.nanoTime() + limit.toNanos();
        AtomicLong writes = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        long begin = clock.nanoTime();
        KubernetesClient noisy = KubernetesClient.builder(
                        ClientConfig.builder().server(cluster.apiServer().url()).build())
                .clock(clock)
                .rateLimiter(RateLimiter.unlimited())
                .userAgent("noisy-neighbour")
                .build();
        active.put("noisy-neighbour", deadline);
        fault(
                "noisy-neighbour",
                NOISY_WRITES + " ConfigMap writes in namespace " + NOISY_NAMESPACE + " from " + NOISY_WRITERS
                        + " writers, " + s.pods() + " pods killed meanwhile");
        List<Thread> writers = new ArrayList<>();
        int perWriter = NOISY_WRITES / NOISY_WRITERS / 2; // each ConfigMap created, then updated
        for (int w = 0; w < NOISY_WRITERS; w++) {
            int writer = w;
            writers.add(Thread.ofVirtual().name("demo-noisy-" + w).start(() -> {
                ResourceClient<ConfigMap> maps =
                        noisy.resources(ConfigMap.class).inNamespace(NOISY_NAMESPACE);
                for (int round = 0; round < 2; round++) {
                    for (int i = 0; i < perWriter && deadline - clock.nanoTime() > 0; i++) {
                        ConfigMap cm = new ConfigMapBuilder()
                                .withNewMetadata()
                                .withName("noise-" + writer + "-" + i)
                                .endMetadata()
                                .addToData("round", Integer.toString(round))
                                .addToData("payload", "x".repeat(256))
                                .build();
                        try {
                            if (round == 0) {
                                maps.create(cm);
                            } else {
                                maps.update(cm);
                            }
                            writes.incrementAndGet();
                        } catch (RuntimeException e) {
                            failures.incrementAndGet();
                        }
                        if (Thread.currentThread().isInterrupted()) {
                            return;
                        }
                    }
                }
            }));
        }
        Thread reporter = Thread.ofVirtual().name("demo-noisy").unstarted(() -> {
            try {
                for (Thread writer : writers) {
                    writer.join(Duration.ofNanos(Math.max(1, deadline - clock.nanoTime()))
                            .plusSeconds(5));
                }
                long took = clock.nanoTime() - begin;
                active.remove("noisy-neighbour");
                line("noisy-neighbour: " + String.format(Locale.ROOT, "%,d", writes.get()) + " ConfigMap writes in "
                        + millis(took) + " ("
                        + Math.round(writes.get() / Math.max(1e-9, took / 1e9)) + "/s)"
                        + (failures.get() > 0 ? ", " + failures.get() + " failed" : ""));
            } catch (InterruptedException e) {
                writers.forEach(Thread::interrupt);
                Thread.currentThread().interrupt();
            } finally {
                noisy.close();
            }
        });
        background.add(reporter);
        reporter.start();
        clock.sleep(wall(Duration.ofSeconds(2)));
        fault("kill-pods", "deleted " + killPods(s.pods()) + " (during the noisy neighbour)");
    }

    // ---------------------------------------------------------------------------------------------------- end

    private DemoReport finish(Scenario scenario, long runStart) throws InterruptedException {
        if (stoppedNode != null) {
            nodeStart();
        }
        step = "converging";
        long t = clock.nanoTime();
        Optional<String> notConverged = awaitConverged(CONVERGE_TIMEOUT);
        if (notConverged.isEmpty()) {
            line("converged in " + elapsed(t) + ": " + POD_SET + " " + settings.replicas() + "/" + settings.replicas()
                    + " Running and Ready, every incident recovered");
        } else {
            line("not converged within " + CONVERGE_TIMEOUT.toSeconds() + " s: " + notConverged.get());
        }
        step = "auditing caches";
        OperatorInstance auditee = leaderOrAny();
        long drift;
        String auditProblem = null;
        try {
            drift = audit(auditee, PodSet.class) + audit(auditee, Pod.class);
            line("cache audit of " + auditee.name() + ": " + drift + " object" + (drift == 1 ? "" : "s")
                    + " drifted (PodSets and Pods against the server)");
        } catch (RuntimeException e) {
            drift = -1;
            auditProblem = "the cache audit failed: " + e.getMessage();
            line(auditProblem);
        }
        Map<String, Double> metrics = SeedMetrics.snapshot(auditee.manager().meterRegistry());
        long errors = 0;
        long retries = 0;
        for (OperatorInstance i : instances) {
            MeterRegistry r = i.manager().meterRegistry();
            errors += Math.round(
                    SeedMetrics.sum(r, "controller.runtime.reconcile.errors", "controller", PodGuardian.CONTROLLER));
            retries += Math.round(SeedMetrics.sum(r, "workqueue.retries", "name", PodGuardian.CONTROLLER));
        }
        List<DemoReport.Incident> incidents = tracker.incidents();
        List<String> problems = new ArrayList<>();
        notConverged.ifPresent(problems::add);
        long lost =
                incidents.stream().filter(i -> i.replacementRunningMs() == null).count();
        if (lost > 0 && notConverged.isEmpty()) {
            problems.add(lost + " incident(s) without a Running replacement");
        }
        if (auditProblem != null) {
            problems.add(auditProblem);
        } else if (drift != 0) {
            problems.add("the leader's caches drifted from the server by " + drift + " object(s)");
        }
        boolean passed = problems.isEmpty();
        return new DemoReport(
                scenario.name(),
                settings.seed(),
                speed,
                settings.nodes(),
                settings.replicas(),
                Duration.ofNanos(clock.nanoTime() - runStart),
                faults,
                incidents,
                tracker.stages(),
                errors,
                retries,
                Math.max(0, drift),
                metrics,
                passed,
                passed ? "" : String.join("; ", problems));
    }

    /**
     * Waits until the PodSet converged: its status says {@code replicas} ready, exactly {@code replicas} of its pods
     * exist that are not being deleted, all Running and Ready, and no incident is open. Empty when it did; otherwise
     * what was still wrong at the deadline.
     */
    private Optional<String> awaitConverged(Duration timeout) throws InterruptedException {
        long deadline = clock.nanoTime() + timeout.toNanos();
        String last = "not checked";
        while (true) {
            last = convergence();
            if (last == null) {
                return Optional.empty();
            }
            if (clock.nanoTime() - deadline > 0) {
                return Optional.of(last);
            }
            clock.sleep(POLL);
        }
    }

    /** What keeps the PodSet from having converged now, from the server's point of view; null when nothing. */
    private String convergence() {
        int replicas = settings.replicas();
        List<String> wrong = new ArrayList<>();
        try {
            PodSet ps = admin.resources(PodSet.class)
                    .inNamespace(NAMESPACE)
                    .get(POD_SET)
                    .orElse(null);
            Integer ready =
                    ps == null || ps.getStatus() == null ? null : ps.getStatus().getReadyReplicas();
            if (ready == null || ready != replicas) {
                wrong.add("PodSet status readyReplicas " + (ready == null ? "unset" : ready) + "/" + replicas);
            }
            List<Pod> pods = admin.resources(Pod.class)
                    .inNamespace(NAMESPACE)
                    .list(ListOptions.builder()
                            .labelSelector(PodSet.NAME_LABEL + "=" + POD_SET)
                            .build())
                    .items();
            long live = pods.stream().filter(p -> !Observer.terminating(p)).count();
            long running = pods.stream()
                    .filter(p -> !Observer.terminating(p) && Observer.runningReady(p))
                    .count();
            if (live != replicas || running != replicas) {
                wrong.add(running + " of " + live + " pods Running and Ready, " + replicas + " wanted");
            }
        } catch (RuntimeException e) {
            wrong.add("the server did not answer: " + e.getMessage());
        }
        IncidentTracker t = tracker;
        int open = t == null ? 0 : t.open();
        if (open > 0) {
            wrong.add(open + " incident" + (open == 1 ? "" : "s") + " without a Running replacement");
        }
        return wrong.isEmpty() ? null : String.join(", ", wrong);
    }

    /** Audits {@code instance}'s cache of {@code type} against the server: the objects that differ. */
    private <T extends io.fabric8.kubernetes.api.model.HasMetadata> long audit(OperatorInstance instance, Class<T> type)
            throws InterruptedException {
        for (Map.Entry<InformerKey, SharedIndexInformer<?>> e :
                instance.manager().informerFactory().informers().entrySet()) {
            InformerKey key = e.getKey();
            if (key.objectType() != type) {
                continue;
            }
            @SuppressWarnings("unchecked")
            SharedIndexInformer<T> informer = (SharedIndexInformer<T>) e.getValue();
            ResourceClient<T> source = key.namespace() == null
                    ? admin.resources(type).inAnyNamespace()
                    : admin.resources(type).inNamespace(key.namespace());
            String labels = key.labelSelector();
            String fields = key.fieldSelector();
            try (CacheAuditor<T> auditor = CacheAuditor.builder(
                            ListerWatchers.forClient(source, o -> {
                                ListOptions.Builder b = o.toBuilder();
                                if (!labels.isEmpty()) {
                                    b.labelSelector(labels);
                                }
                                if (!fields.isEmpty()) {
                                    b.fieldSelector(fields);
                                }
                                return b.build();
                            }),
                            informer.indexer())
                    .name("demo-" + key.describe())
                    .settleTime(Duration.ofMillis(500))
                    .clock(clock)
                    .build()) {
                AuditResult result = auditor.audit();
                if (!result.isClean()) {
                    line("cache audit: " + result);
                }
                return result.driftedObjects();
            }
        }
        throw new IllegalStateException(instance.name() + " has no informer of " + type.getSimpleName());
    }

    // ---------------------------------------------------------------------------------------------------- view

    private Frame frame() {
        long now = clock.nanoTime();
        long start = startNanos;
        Duration clusterTime = start == 0 ? Duration.ZERO : Duration.ofNanos((long) ((now - start) * speed));
        OperatorInstance leader = instances.stream()
                .filter(OperatorInstance::isLeader)
                .findFirst()
                .orElse(null);
        int depth = -1;
        String informer = "—";
        OperatorInstance watched =
                leader != null ? leader : alive().stream().findFirst().orElse(null);
        if (leader != null) {
            depth = (int) Math.round(SeedMetrics.sum(
                    leader.manager().meterRegistry(), "workqueue.depth", "name", PodGuardian.CONTROLLER));
        }
        if (watched != null) {
            informer = informerState(watched);
        }
        double total = 0;
        for (OperatorInstance i : instances) {
            total += SeedMetrics.sum(
                    i.manager().meterRegistry(), "controller.runtime.reconcile", "controller", PodGuardian.CONTROLLER);
        }
        double rate = 0;
        sampleLock.lock();
        try {
            if (lastReconciles >= 0 && now - lastSampleNanos > 0) {
                rate = Math.max(0, total - lastReconciles) / ((now - lastSampleNanos) / 1e9);
            }
            lastReconciles = total;
            lastSampleNanos = now;
        } finally {
            sampleLock.unlock();
        }
        IncidentTracker t = tracker;
        List<String> faultsNow = new ArrayList<>();
        active.forEach((text, end) -> faultsNow.add(
                end == Long.MIN_VALUE
                        ? text
                        : text + " " + Math.max(0, Math.round((end - now) / 1e9 * speed)) + "s left"));
        return new Frame(
                clusterTime,
                step,
                observer.nodeRows(),
                settings.replicas(),
                observer.ready(),
                depth,
                rate,
                informer,
                leader == null ? "none" : leader.name(),
                t == null ? 0 : t.open(),
                faultsNow);
    }

    private static String informerState(OperatorInstance instance) {
        for (Map.Entry<InformerKey, SharedIndexInformer<?>> e :
                instance.manager().informerFactory().informers().entrySet()) {
            if (e.getKey().objectType() == Pod.class) {
                InformerHealth.State state = e.getValue().health().state();
                return switch (state) {
                    case WATCHING -> "watching";
                    case BACKING_OFF -> "backing off";
                    case LISTING -> "relisting";
                    case NOT_STARTED -> "not started";
                    case STOPPED -> "stopped";
                };
            }
        }
        return "—";
    }

    // ---------------------------------------------------------------------------------------------------- helpers

    private List<OperatorInstance> alive() {
        return instances.stream().filter(i -> !i.isKilled()).toList();
    }

    private OperatorInstance leaderOrAny() {
        return instances.stream().filter(OperatorInstance::isLeader).findFirst().orElseGet(() -> alive().stream()
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no operator instance is left")));
    }

    private Optional<OperatorInstance> awaitLeader(Duration timeout) throws InterruptedException {
        long deadline = clock.nanoTime() + timeout.toNanos();
        while (true) {
            for (OperatorInstance i : instances) {
                if (i.isLeader()) {
                    return Optional.of(i);
                }
            }
            if (clock.nanoTime() - deadline > 0) {
                return Optional.empty();
            }
            clock.sleep(Duration.ofMillis(10));
        }
    }

    private boolean await(Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = clock.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (clock.nanoTime() - deadline > 0) {
                return false;
            }
            clock.sleep(Duration.ofMillis(20));
        }
        return true;
    }

    /** Sleeps on the clock until {@code clusterTime} after the scenario began. */
    private void sleepUntil(Duration clusterTime) throws InterruptedException {
        long due = startNanos + wall(clusterTime).toNanos();
        clock.sleep(Duration.ofNanos(due - clock.nanoTime()));
    }

    private Duration wall(Duration clusterTime) {
        return cluster.timings().wall(clusterTime);
    }

    private void fault(String name, String detail) {
        Duration at = Duration.ofNanos((long) ((clock.nanoTime() - startNanos) * speed));
        faults.add(new DemoReport.Fault(at, name, detail));
        line(name + ": " + detail);
    }

    /** An event line, stamped with the cluster time since the scenario began once it did. */
    private void line(String text) {
        long start = startNanos;
        if (start == 0) {
            view.line(text);
            return;
        }
        double at = (clock.nanoTime() - start) * speed / 1e9;
        view.line(String.format(Locale.ROOT, "[%+7.1fs] %s", at, text));
    }

    private String elapsed(long since) {
        return millis(clock.nanoTime() - since);
    }

    private static String millis(long nanos) {
        double ms = nanos / 1e6;
        return ms < 1000 ? Math.round(ms) + " ms" : String.format(Locale.ROOT, "%.1f s", ms / 1000);
    }

    private static String number(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String names(List<OperatorInstance> list) {
        List<String> names = list.stream().map(OperatorInstance::name).toList();
        if (names.size() <= 1) {
            return String.join("", names);
        }
        return String.join(", ", names.subList(0, names.size() - 1)) + " and " + names.getLast();
    }

    private void joinBackground() throws InterruptedException {
        for (Thread t : background) {
            t.join(SETUP_TIMEOUT);
        }
    }

    /** Closes everything started, in reverse order; never throws. */
    private void closeAll() {
        boolean interrupted = Thread.interrupted(); // close fully even after Ctrl-C, then restore the interrupt
        for (Thread t : background) {
            t.interrupt();
        }
        for (Thread t : background) {
            try {
                t.join(Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (view != null) {
            quietly(view::close, "the live view");
        }
        List<OperatorInstance> all = new ArrayList<>(instances);
        Collections.reverse(all);
        for (OperatorInstance i : all) {
            quietly(i::close, i.name());
        }
        if (observer != null) {
            quietly(observer::close, "the observer");
        }
        if (admin != null) {
            quietly(admin::close, "the admin client");
        }
        if (cluster != null) {
            quietly(cluster::close, "the cluster");
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static void quietly(Runnable close, String what) {
        try {
            close.run();
        } catch (RuntimeException e) {
            log.warn("demo: closing {} failed", what, e);
        }
    }

    /** Bounds for waiting on leader election at this speed. */
    private record LeaseTimingsView(Duration bound) {
        static LeaseTimingsView of(double speed) {
            return new LeaseTimingsView(OperatorInstance.LeaseTimings.forSpeed(speed)
                    .leaseDuration()
                    .multipliedBy(5)
                    .plusSeconds(5));
        }
    }
}
