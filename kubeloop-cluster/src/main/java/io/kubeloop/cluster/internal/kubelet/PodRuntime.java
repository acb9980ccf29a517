package io.kubeloop.cluster.internal.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodReadinessGate;
import io.kubeloop.clock.Clock;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The simulated containers of one pod on one node, and the status the kubelet reports for them (kubelet's
 * {@code generateAPIPodStatus}, {@code getPhase} and {@code status/generate.go}).
 *
 * <p>The pod's life is a list of dated transitions — sandbox ready, an init container done, a container started,
 * ready, exited, restarted after its back-off, killed at the end of a graceful deletion — computed from the spec and
 * the {@code sim.kubeloop.io/*} annotations. {@link #advance(long)} applies, in date order, every transition due by
 * then; so transitions that fall at the same instant collapse into one reported status, as a kubelet that syncs a
 * pod once sees only where the containers ended up.
 *
 * <p>Confinement: only the pod's worker touches it (the work queue never hands a key to two workers at once), except
 * {@link #crashRequested}, which any thread may set. Times are the clock's nanoTime; {@link #NEVER} is "not planned".
 */
final class PodRuntime {

    static final long NEVER = Long.MAX_VALUE;
    /** kubelet's container restart back-off: 10 s doubling to 5 min ({@code flowcontrol.Backoff}), cluster time. */
    static final Duration INITIAL_BACKOFF = Duration.ofSeconds(10);

    static final Duration MAX_BACKOFF = Duration.ofMinutes(5);
    /** The condition types the kubelet owns (kubetypes.PodConditionByKubelet); others are kept as they are. */
    static final Set<String> KUBELET_CONDITIONS =
            Set.of("PodScheduled", "Ready", "Initialized", "ContainersReady", "PodReadyToStartContainers");

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    enum State {
        WAITING,
        RUNNING,
        TERMINATED
    }

    /** One container of the pod, across its restarts. */
    static final class Ctr {
        final Container spec;
        final boolean init;
        State state = State.WAITING;
        String waitingReason;
        String waitingMessage;
        int restartCount;
        boolean ready;
        long startedAt;
        long finishedAt;
        int exitCode;
        String reason;
        String message;
        String containerId;
        /** The previous run's termination (lastState), or null. */
        ObjectNode last;

        long exitDue = NEVER;
        int exitWith;
        long readyDue = NEVER;
        long restartDue = NEVER;
        /** The back-off entry: null until the first restart; its duration and when it last changed. */
        Duration backoff;

        long backoffUpdated;

        Ctr(Container spec, boolean init, String waitingReason) {
            this.spec = spec;
            this.init = init;
            this.waitingReason = waitingReason;
        }

        String name() {
            return spec.getName();
        }

        boolean everStarted() {
            return state != State.WAITING || last != null;
        }
    }

    final String key;
    final String uid;
    final NodeKubelet node;
    final SimAnnotations sim;
    private final String restartPolicy;
    private final List<Ctr> initContainers = new ArrayList<>();
    private final List<Ctr> containers = new ArrayList<>();
    private final boolean hostNetwork;

    /** The pod as last seen from the API (a partitioned kubelet keeps the one it had). */
    Pod pod;

    final long firstSeen;
    private long sandboxDue;
    private boolean sandboxReady;
    String podIp;
    private int nextInit;
    private long killDue = NEVER;
    boolean killed;
    /** Succeeded or Failed once reported: a terminal phase never changes again. */
    private String terminalPhase;
    /** The status last written, for the next comparison and the conditions' transition times; null: none yet. */
    ObjectNode lastSent;
    /** The pod's IP was given back (its sandbox is gone). */
    boolean sandboxReleased;
    /** The pod was deleted by this kubelet (grace 0): nothing more to do. */
    boolean deletedByKubelet;

    Clock.Scheduled timer;
    long timerDue = NEVER;
    volatile boolean crashRequested;

    /** A fixed pairing of the clock's readings, so that a moment of the pod's timeline always has one timestamp. */
    private final Instant epoch;

    private final long epochNanos;

    PodRuntime(String key, NodeKubelet node, Pod pod, long now, Instant nowInstant) {
        this.epoch = nowInstant;
        this.epochNanos = now;
        this.key = key;
        this.uid = pod.getMetadata().getUid();
        this.node = node;
        this.pod = pod;
        this.sim = SimAnnotations.of(pod);
        this.restartPolicy = pod.getSpec().getRestartPolicy() == null
                ? "Always"
                : pod.getSpec().getRestartPolicy();
        this.hostNetwork = Boolean.TRUE.equals(pod.getSpec().getHostNetwork());
        boolean hasInit = pod.getSpec().getInitContainers() != null
                && !pod.getSpec().getInitContainers().isEmpty();
        String waiting = hasInit ? "PodInitializing" : "ContainerCreating";
        if (hasInit) {
            for (Container c : pod.getSpec().getInitContainers()) {
                initContainers.add(new Ctr(c, true, waiting));
            }
        }
        for (Container c : pod.getSpec().getContainers()) {
            containers.add(new Ctr(c, false, waiting));
        }
        this.firstSeen = now;
        this.sandboxDue = now + wall(sim.startDelay());
    }

    private long wall(Duration clusterTime) {
        return node.timings().wall(clusterTime).toNanos();
    }

    private static long plus(long at, long nanos) {
        long sum = at + nanos;
        return sum < at ? NEVER - 1 : sum;
    }

    /** Notes what the API says: a deletion starts the grace period, counted from now as the kubelet's is. */
    void observe(Pod current, long now) {
        this.pod = current;
        if (current.getMetadata().getDeletionTimestamp() != null && killDue == NEVER && !killed) {
            Long grace = current.getMetadata().getDeletionGracePeriodSeconds();
            if (grace == null) {
                grace = current.getSpec().getTerminationGracePeriodSeconds();
            }
            // a finished pod has nothing left to stop: the kubelet deletes it at once
            killDue = allStopped() ? now : plus(now, wall(Duration.ofSeconds(grace == null ? 30 : Math.max(0, grace))));
        }
    }

    boolean deleting() {
        return killDue != NEVER || killed;
    }

    /** The earliest planned transition, or {@link #NEVER}. */
    long nextDue() {
        if (killed) {
            return NEVER;
        }
        long due = Math.min(killDue, sandboxReady ? NEVER : sandboxDue);
        for (Ctr c : all()) {
            due = Math.min(due, Math.min(c.exitDue, Math.min(c.readyDue, c.restartDue)));
        }
        return due;
    }

    /** Applies every transition due by {@code now}, in date order. */
    void advance(long now) {
        if (crashRequested) {
            crashRequested = false;
            for (Ctr c : all()) {
                if (c.state == State.RUNNING) {
                    exit(c, now, 137, "Error");
                }
            }
        }
        for (int guard = 0; guard < 100_000; guard++) {
            long due = nextDue();
            if (due > now) {
                return;
            }
            step(due);
        }
        throw new IllegalStateException("pod " + key + ": more than 100000 transitions at once");
    }

    private void step(long t) {
        if (killDue <= t) {
            kill(t);
            return;
        }
        if (!sandboxReady && sandboxDue <= t) {
            if (!hostNetwork) {
                podIp = node.allocatePodIp();
                if (podIp == null) {
                    sandboxDue = NEVER; // the node's range is full: the pod stays ContainerCreating
                    return;
                }
            } else {
                podIp = node.internalIp();
            }
            sandboxReady = true;
            startNext(t);
            return;
        }
        for (Ctr c : all()) {
            if (c.exitDue <= t) {
                exit(c, t, c.exitWith, null);
                return;
            }
        }
        for (Ctr c : all()) {
            if (c.restartDue <= t) {
                c.restartDue = NEVER;
                Duration doubled = c.backoff.multipliedBy(2);
                c.backoff = doubled.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : doubled;
                c.backoffUpdated = t;
                restartNow(c, t);
                return;
            }
            if (c.readyDue <= t) {
                c.readyDue = NEVER;
                c.ready = true;
                return;
            }
        }
    }

    private List<Ctr> all() {
        if (initContainers.isEmpty()) {
            return containers;
        }
        List<Ctr> all = new ArrayList<>(initContainers);
        all.addAll(containers);
        return all;
    }

    private void startNext(long t) {
        if (nextInit < initContainers.size()) {
            start(initContainers.get(nextInit), t);
            return;
        }
        for (Ctr c : containers) {
            if (c.state == State.WAITING && !c.everStarted()) {
                start(c, t);
            }
        }
    }

    private void start(Ctr c, long t) {
        c.state = State.RUNNING;
        c.startedAt = t;
        c.waitingReason = null;
        c.waitingMessage = null;
        c.ready = false;
        c.containerId = "kubeloop-sim://" + sha256(uid + "/" + c.name() + "/" + c.restartCount);
        if (c.init) {
            c.exitDue = plus(t, wall(sim.initDuration()));
            c.exitWith = 0;
            return;
        }
        c.readyDue = sim.neverReady() ? NEVER : plus(t, wall(sim.readyDelayOf(c.spec)));
        if (sim.exitCode() != null) {
            c.exitDue = plus(t, wall(sim.runDuration()));
            c.exitWith = sim.exitCode();
        }
    }

    private void exit(Ctr c, long t, int code, String reason) {
        c.state = State.TERMINATED;
        c.exitCode = code;
        c.reason = reason != null ? reason : code == 0 ? "Completed" : "Error";
        c.message = null;
        c.finishedAt = t;
        c.exitDue = NEVER;
        c.readyDue = NEVER;
        c.ready = c.init && code == 0;
        if (c.init) {
            if (code == 0) {
                nextInit = initContainers.indexOf(c) + 1;
                startNext(t);
            } else if (!restartPolicy.equals("Never")) {
                restartWithBackoff(c, t);
            }
            return;
        }
        boolean restart = restartPolicy.equals("Always") || (restartPolicy.equals("OnFailure") && code != 0);
        if (restart && killDue == NEVER) {
            restartWithBackoff(c, t);
        }
    }

    /** kubelet's doBackOff: the first failure restarts at once; later ones wait the back-off, which then doubles. */
    private void restartWithBackoff(Ctr c, long t) {
        boolean expired = c.backoff != null && t - c.backoffUpdated > wall(MAX_BACKOFF.multipliedBy(2));
        if (c.backoff == null || expired) {
            c.backoff = INITIAL_BACKOFF;
            c.backoffUpdated = t;
            restartNow(c, t);
            return;
        }
        c.last = terminated(c, null);
        c.state = State.WAITING;
        c.waitingReason = "CrashLoopBackOff";
        c.waitingMessage =
                "back-off " + GoDurations.format(c.backoff) + " restarting failed container=" + c.name() + " pod="
                        + pod.getMetadata().getName() + "_" + pod.getMetadata().getNamespace() + "(" + uid + ")";
        c.restartDue = plus(t, wall(c.backoff));
    }

    private void restartNow(Ctr c, long t) {
        c.last = terminated(c, null);
        c.restartCount++;
        start(c, t);
    }

    /** The end of a graceful deletion: every container is stopped, nothing restarts. */
    private void kill(long t) {
        killed = true;
        killDue = NEVER;
        for (Ctr c : all()) {
            c.exitDue = NEVER;
            c.readyDue = NEVER;
            c.restartDue = NEVER;
            c.ready = false;
            if (c.state == State.RUNNING) {
                // the simulated program honours SIGTERM, at the end of its grace period
                c.state = State.TERMINATED;
                c.exitCode = 0;
                c.reason = "Completed";
                c.message = null;
                c.finishedAt = t;
            } else if (c.state == State.WAITING && c.last != null) {
                // a container waiting to restart is reported as its last run
                c.state = State.TERMINATED;
                c.exitCode = c.last.path("exitCode").asInt();
                c.reason = c.last.path("reason").asString();
                c.message = null;
                c.finishedAt = c.finishedAt == 0 ? t : c.finishedAt;
                c.last = null;
            } else if (c.state == State.WAITING) {
                c.state = State.TERMINATED;
                c.exitCode = 137;
                c.reason = "ContainerStatusUnknown";
                c.message = "The container could not be located when the pod was terminated";
                c.startedAt = t;
                c.finishedAt = t;
            }
        }
    }

    boolean allStopped() {
        String phase = phase();
        return phase.equals("Succeeded") || phase.equals("Failed");
    }

    /** kubelet's getPhase (1.32), sticky once terminal. */
    String phase() {
        if (terminalPhase != null) {
            return terminalPhase;
        }
        int pendingInit = 0;
        int failedInit = 0;
        for (Ctr c : initContainers) {
            switch (c.state) {
                case RUNNING -> pendingInit++;
                case TERMINATED -> failedInit += c.exitCode != 0 ? 1 : 0;
                case WAITING -> {
                    if (c.last != null) {
                        failedInit += c.last.path("exitCode").asInt() != 0 ? 1 : 0;
                    } else {
                        pendingInit++;
                    }
                }
            }
        }
        int running = 0;
        int waiting = 0;
        int stopped = 0;
        int succeeded = 0;
        boolean anyStarted = false;
        for (Ctr c : containers) {
            anyStarted |= c.everStarted();
            switch (c.state) {
                case RUNNING -> running++;
                case TERMINATED -> {
                    stopped++;
                    succeeded += c.exitCode == 0 ? 1 : 0;
                }
                case WAITING -> {
                    if (c.last != null) {
                        stopped++;
                    } else {
                        waiting++;
                    }
                }
            }
        }
        if (failedInit > 0 && restartPolicy.equals("Never")) {
            return "Failed";
        }
        if ((pendingInit > 0 && !anyStarted) || waiting > 0) {
            return "Pending";
        }
        if (running > 0) {
            return "Running";
        }
        if (stopped > 0) {
            if (killed) {
                return stopped == succeeded ? "Succeeded" : "Failed";
            }
            if (restartPolicy.equals("Always")) {
                return "Running";
            }
            if (stopped == succeeded) {
                return "Succeeded";
            }
            return restartPolicy.equals("Never") ? "Failed" : "Running";
        }
        return "Pending";
    }

    /**
     * The status the kubelet reports now: its own conditions after the others' (kept from {@code apiStatus}),
     * transition times kept where a condition's status did not change.
     *
     * @param apiStatus the pod's status as the API holds it (for the conditions other components own)
     * @param now the clock's reading, for new timestamps
     */
    ObjectNode status(JsonNode apiStatus, Instant now) {
        java.util.function.LongFunction<Instant> at = t -> epoch.plusNanos(t - epochNanos);
        String phase = phase();
        boolean terminal = phase.equals("Succeeded") || phase.equals("Failed");
        if (terminal) {
            terminalPhase = phase;
            node.releasePodIp(this);
        }
        JsonNode previous = lastSent != null ? lastSent : apiStatus;
        ObjectNode s = JSON.objectNode();
        s.put("phase", phase);
        ArrayNode conditions = s.putArray("conditions");
        for (JsonNode c : apiStatus.path("conditions")) {
            if (!KUBELET_CONDITIONS.contains(c.path("type").asString())) {
                conditions.add(c);
            }
        }
        conditions.add(condition(
                previous, now, "PodReadyToStartContainers", sandboxReady && !terminal ? "True" : "False", null, null));
        conditions.add(initialized(previous, now, phase));
        ObjectNode containersReady = containersReady(previous, now, phase);
        conditions.add(ready(previous, now, containersReady, conditions));
        conditions.add(containersReady);
        ObjectNode scheduled = condition(previous, now, "PodScheduled", "True", null, null);
        for (JsonNode c : apiStatus.path("conditions")) {
            if (c.path("type").asString().equals("PodScheduled")
                    && c.path("status").asString().equals("True")
                    && c.has("lastTransitionTime")) {
                scheduled.set("lastTransitionTime", c.get("lastTransitionTime"));
            }
        }
        conditions.add(scheduled);
        String hostIp = node.internalIp();
        s.put("hostIP", hostIp);
        s.putArray("hostIPs").addObject().put("ip", hostIp);
        if (podIp != null) {
            s.put("podIP", podIp);
            s.putArray("podIPs").addObject().put("ip", podIp);
        }
        s.put("startTime", format(at.apply(firstSeen)));
        if (!initContainers.isEmpty()) {
            ArrayNode list = s.putArray("initContainerStatuses");
            initContainers.forEach(c -> list.add(containerStatus(c, at)));
        }
        ArrayNode list = s.putArray("containerStatuses");
        containers.forEach(c -> list.add(containerStatus(c, at)));
        return s;
    }

    private ObjectNode initialized(JsonNode previous, Instant now, String phase) {
        if (phase.equals("Succeeded") || initContainers.isEmpty()) {
            return condition(
                    previous,
                    now,
                    "Initialized",
                    "True",
                    phase.equals("Succeeded") && !initContainers.isEmpty() ? "PodCompleted" : null,
                    null);
        }
        boolean regularStarted = containers.stream().anyMatch(Ctr::everStarted);
        if (regularStarted) {
            return condition(previous, now, "Initialized", "True", null, null);
        }
        List<String> incomplete = new ArrayList<>();
        for (Ctr c : initContainers) {
            if (!c.ready) {
                incomplete.add(c.name());
            }
        }
        if (incomplete.isEmpty()) {
            return condition(previous, now, "Initialized", "True", null, null);
        }
        return condition(
                previous,
                now,
                "Initialized",
                "False",
                "ContainersNotInitialized",
                "containers with incomplete status: " + goList(incomplete));
    }

    private ObjectNode containersReady(JsonNode previous, Instant now, String phase) {
        if (phase.equals("Succeeded")) {
            return condition(previous, now, "ContainersReady", "False", "PodCompleted", null);
        }
        if (phase.equals("Failed")) {
            return condition(previous, now, "ContainersReady", "False", "PodFailed", null);
        }
        List<String> unready = new ArrayList<>();
        for (Ctr c : containers) {
            if (!c.ready) {
                unready.add(c.name());
            }
        }
        if (!unready.isEmpty()) {
            return condition(
                    previous,
                    now,
                    "ContainersReady",
                    "False",
                    "ContainersNotReady",
                    "containers with unready status: " + goList(unready));
        }
        return condition(previous, now, "ContainersReady", "True", null, null);
    }

    private ObjectNode ready(JsonNode previous, Instant now, ObjectNode containersReady, ArrayNode conditions) {
        if (!containersReady.path("status").asString().equals("True")) {
            return condition(
                    previous,
                    now,
                    "Ready",
                    containersReady.path("status").asString(),
                    containersReady.path("reason").asString(null),
                    containersReady.path("message").asString(null));
        }
        List<String> messages = new ArrayList<>();
        List<PodReadinessGate> gates = pod.getSpec().getReadinessGates();
        if (gates != null) {
            for (PodReadinessGate gate : gates) {
                JsonNode found = null;
                for (JsonNode c : conditions) {
                    if (c.path("type").asString().equals(gate.getConditionType())) {
                        found = c;
                    }
                }
                if (found == null) {
                    messages.add("corresponding condition of pod readiness gate \"" + gate.getConditionType()
                            + "\" does not exist.");
                } else if (!found.path("status").asString().equals("True")) {
                    messages.add("the status of pod readiness gate \"" + gate.getConditionType()
                            + "\" is not \"True\", but " + found.path("status").asString());
                }
            }
        }
        if (!messages.isEmpty()) {
            return condition(previous, now, "Ready", "False", "ReadinessGatesNotReady", String.join(", ", messages));
        }
        return condition(previous, now, "Ready", "True", null, null);
    }

    private static ObjectNode condition(
            JsonNode previous, Instant now, String type, String status, String reason, String message) {
        ObjectNode c = JSON.objectNode();
        c.put("type", type);
        c.put("status", status);
        String transition = format(now);
        for (JsonNode p : previous.path("conditions")) {
            if (p.path("type").asString().equals(type)
                    && p.path("status").asString().equals(status)
                    && p.has("lastTransitionTime")) {
                transition = p.path("lastTransitionTime").asString();
            }
        }
        c.putNull("lastProbeTime");
        c.put("lastTransitionTime", transition);
        if (reason != null) {
            c.put("reason", reason);
        }
        if (message != null) {
            c.put("message", message);
        }
        return c;
    }

    private ObjectNode containerStatus(Ctr c, java.util.function.LongFunction<Instant> at) {
        ObjectNode s = JSON.objectNode();
        s.put("name", c.name());
        ObjectNode state = s.putObject("state");
        switch (c.state) {
            case WAITING -> {
                ObjectNode w = state.putObject("waiting");
                w.put("reason", c.waitingReason);
                if (c.waitingMessage != null) {
                    w.put("message", c.waitingMessage);
                }
            }
            case RUNNING -> state.putObject("running").put("startedAt", format(at.apply(c.startedAt)));
            case TERMINATED -> state.set("terminated", terminated(c, at));
        }
        ObjectNode last = s.putObject("lastState");
        if (c.last != null) {
            ObjectNode t = c.last.deepCopy();
            t.put("startedAt", format(at.apply(t.remove("startedAtNanos").asLong())));
            t.put("finishedAt", format(at.apply(t.remove("finishedAtNanos").asLong())));
            ObjectNode ordered = JSON.objectNode();
            for (String f : List.of("exitCode", "reason", "message", "startedAt", "finishedAt", "containerID")) {
                if (t.has(f)) {
                    ordered.set(f, t.get(f));
                }
            }
            last.set("terminated", ordered);
        }
        s.put("ready", c.ready);
        s.put("restartCount", c.restartCount);
        String image = c.spec.getImage() == null ? "" : c.spec.getImage();
        if (c.everStarted() && c.containerId != null) {
            String normalized = normalizeImage(image);
            s.put("image", normalized);
            s.put("imageID", repository(normalized) + "@sha256:" + sha256(normalized));
            s.put("containerID", c.containerId);
        } else {
            s.put("image", image);
            s.put("imageID", "");
        }
        s.put("started", c.state == State.RUNNING);
        return s;
    }

    /** The terminated state of {@code c}'s current run; with {@code at} null, kept with nanoTimes for later. */
    private static ObjectNode terminated(Ctr c, java.util.function.LongFunction<Instant> at) {
        ObjectNode t = JSON.objectNode();
        t.put("exitCode", c.exitCode);
        t.put("reason", c.reason);
        if (c.message != null) {
            t.put("message", c.message);
        }
        if (at == null) {
            t.put("startedAtNanos", c.startedAt);
            t.put("finishedAtNanos", c.finishedAt);
        } else {
            t.put("startedAt", format(at.apply(c.startedAt)));
            t.put("finishedAt", format(at.apply(c.finishedAt)));
        }
        if (c.containerId != null) {
            t.put("containerID", c.containerId);
        }
        return t;
    }

    /** What a container runtime reports for an image reference: {@code nginx} is docker.io/library/nginx:latest. */
    static String normalizeImage(String image) {
        if (image.isEmpty()) {
            return image;
        }
        String ref = image;
        int slash = ref.indexOf('/');
        String first = slash < 0 ? "" : ref.substring(0, slash);
        boolean hasDomain = slash >= 0 && (first.contains(".") || first.contains(":") || first.equals("localhost"));
        if (!hasDomain) {
            ref = "docker.io/" + (slash < 0 ? "library/" : "") + ref;
        }
        int lastSlash = ref.lastIndexOf('/');
        String tail = ref.substring(lastSlash + 1);
        if (!tail.contains(":") && !tail.contains("@")) {
            ref = ref + ":latest";
        }
        return ref;
    }

    private static String repository(String normalized) {
        int at = normalized.indexOf('@');
        String ref = at < 0 ? normalized : normalized.substring(0, at);
        int lastSlash = ref.lastIndexOf('/');
        int colon = ref.lastIndexOf(':');
        return colon > lastSlash ? ref.substring(0, colon) : ref;
    }

    static String sha256(String text) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Go's {@code %s} of a {@code []string}: {@code [a b]}. */
    private static String goList(List<String> names) {
        return "[" + String.join(" ", names) + "]";
    }

    static String format(Instant t) {
        return t.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    /** Container names by state, for logs and tests. */
    Map<String, State> states() {
        Map<String, State> m = new java.util.LinkedHashMap<>();
        all().forEach(c -> m.put(c.name(), c.state));
        return m;
    }
}
