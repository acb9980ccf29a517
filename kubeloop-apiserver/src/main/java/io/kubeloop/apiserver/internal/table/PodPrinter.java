package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Pods, as kube-apiserver's {@code printPod}: READY counts ready running containers (plus started restartable
 * init containers, i.e. sidecars) over all containers; STATUS starts from the phase (or {@code status.reason})
 * and is refined by init containers ({@code Init:1/2}, {@code Init:CrashLoopBackOff}, {@code Init:ExitCode:1}),
 * then by containers (a waiting or terminated reason, {@code ExitCode:N}, {@code Signal:N}), and ends as
 * {@code Terminating} once {@code deletionTimestamp} is set; RESTARTS sums restart counts and adds
 * {@code (5m ago)} when a container has a last termination time.
 *
 * <p>A pod without {@code status.phase} prints {@code Pending}: kube-apiserver always stores a phase (it sets
 * Pending on create), this store keeps objects as written.
 */
final class PodPrinter implements Printer {

    private static final List<Column> COLUMNS = List.of(
            Column.NAME,
            Column.string("Ready", "The aggregate readiness state of this pod for accepting traffic."),
            Column.string("Status", "The aggregate status of the containers in this pod."),
            Column.string(
                    "Restarts",
                    "The number of times the containers in this pod have been restarted and when "
                            + "the last container in this pod has restarted."),
            Column.AGE,
            Column.wide("IP", Descriptions.POD_IP),
            Column.wide("Node", Descriptions.NODE_NAME),
            Column.wide("Nominated Node", Descriptions.NOMINATED_NODE_NAME),
            Column.wide("Readiness Gates", Descriptions.READINESS_GATES));

    private static final Row.Condition SUCCEEDED =
            new Row.Condition("Completed", "True", "Succeeded", "The pod has completed successfully.");
    private static final Row.Condition FAILED = new Row.Condition("Completed", "True", "Failed", "The pod failed.");

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode pod, Instant now) {
        JsonNode spec = pod.path("spec");
        JsonNode status = pod.path("status");
        long restarts = 0;
        long restartableInitRestarts = 0;
        int totalContainers = spec.path("containers").size();
        int readyContainers = 0;
        Instant lastRestart = null;
        Instant lastRestartableInitRestart = null;

        String phase = Fields.text(status.get("phase"));
        if (phase.isEmpty()) {
            phase = "Pending";
        }
        String reason = phase;
        if (!Fields.text(status.get("reason")).isEmpty()) {
            reason = Fields.text(status.get("reason"));
        }
        for (JsonNode condition : status.path("conditions")) {
            if (Fields.text(condition.get("type")).equals("PodScheduled")
                    && Fields.text(condition.get("reason")).equals("SchedulingGated")) {
                reason = "SchedulingGated";
            }
        }
        List<Row.Condition> rowConditions =
                switch (phase) {
                    case "Succeeded" -> List.of(SUCCEEDED);
                    case "Failed" -> List.of(FAILED);
                    default -> List.of();
                };

        Map<String, JsonNode> initContainers = new HashMap<>();
        JsonNode initSpecs = spec.path("initContainers");
        for (JsonNode c : initSpecs) {
            initContainers.put(Fields.text(c.get("name")), c);
            if (isRestartable(c)) {
                totalContainers++;
            }
        }

        boolean initializing = false;
        JsonNode initStatuses = status.path("initContainerStatuses");
        for (int i = 0; i < initStatuses.size(); i++) {
            JsonNode container = initStatuses.get(i);
            long restartCount = Fields.integer(container.get("restartCount"));
            restarts += restartCount;
            Instant terminatedAt = lastTerminatedAt(container);
            lastRestart = later(lastRestart, terminatedAt);
            boolean restartable = isRestartable(initContainers.get(Fields.text(container.get("name"))));
            if (restartable) {
                restartableInitRestarts += restartCount;
                lastRestartableInitRestart = later(lastRestartableInitRestart, terminatedAt);
            }
            JsonNode state = container.path("state");
            JsonNode terminated = state.get("terminated");
            JsonNode waiting = state.get("waiting");
            if (Fields.isSet(terminated) && Fields.integer(terminated.get("exitCode")) == 0) {
                continue;
            }
            if (restartable && Fields.bool(container.get("started"))) {
                if (Fields.bool(container.get("ready"))) {
                    readyContainers++;
                }
                continue;
            }
            if (Fields.isSet(terminated)) {
                reason = "Init:" + terminatedReason(terminated);
            } else if (Fields.isSet(waiting)
                    && !Fields.text(waiting.get("reason")).isEmpty()
                    && !Fields.text(waiting.get("reason")).equals("PodInitializing")) {
                reason = "Init:" + Fields.text(waiting.get("reason"));
            } else {
                reason = "Init:" + i + "/" + initSpecs.size();
            }
            initializing = true;
            break;
        }

        if (!initializing || hasCondition(status, "Initialized")) {
            restarts = restartableInitRestarts;
            lastRestart = lastRestartableInitRestart;
            boolean hasRunning = false;
            JsonNode statuses = status.path("containerStatuses");
            for (int i = statuses.size() - 1; i >= 0; i--) {
                JsonNode container = statuses.get(i);
                restarts += Fields.integer(container.get("restartCount"));
                lastRestart = later(lastRestart, lastTerminatedAt(container));
                JsonNode state = container.path("state");
                JsonNode waiting = state.get("waiting");
                JsonNode terminated = state.get("terminated");
                if (Fields.isSet(waiting) && !Fields.text(waiting.get("reason")).isEmpty()) {
                    reason = Fields.text(waiting.get("reason"));
                } else if (Fields.isSet(terminated)) {
                    reason = terminatedReason(terminated);
                } else if (Fields.bool(container.get("ready")) && Fields.isSet(state.get("running"))) {
                    hasRunning = true;
                    readyContainers++;
                }
            }
            // At least one container still running: the pod is not "Completed".
            if (reason.equals("Completed") && hasRunning) {
                reason = hasCondition(status, "Ready") ? "Running" : "NotReady";
            }
        }

        boolean deleting =
                !Fields.text(pod.path("metadata").get("deletionTimestamp")).isEmpty();
        if (deleting && Fields.text(status.get("reason")).equals("NodeLost")) {
            reason = "Unknown";
        } else if (deleting && !phase.equals("Succeeded") && !phase.equals("Failed")) {
            reason = "Terminating";
        }

        String restartsCell = Long.toString(restarts);
        if (restarts != 0 && lastRestart != null) {
            restartsCell = restarts + " (" + Ages.since(lastRestart, now) + " ago)";
        }

        String podIp = "";
        JsonNode podIps = status.path("podIPs");
        if (!podIps.isEmpty()) {
            podIp = Fields.text(podIps.get(0).get("ip"));
        } else {
            podIp = Fields.text(status.get("podIP")); // v1 -> internal conversion fills podIPs from podIP
        }
        String nodeName = Fields.text(spec.get("nodeName"));
        String nominatedNodeName = Fields.text(status.get("nominatedNodeName"));

        return new Row(
                List.of(
                        Fields.text(pod.path("metadata").get("name")),
                        readyContainers + "/" + totalContainers,
                        reason,
                        restartsCell,
                        Ages.of(pod, now),
                        orNone(podIp),
                        orNone(nodeName),
                        orNone(nominatedNodeName),
                        readinessGates(spec, status)),
                rowConditions);
    }

    private static String readinessGates(JsonNode spec, JsonNode status) {
        JsonNode gates = spec.path("readinessGates");
        if (gates.isEmpty()) {
            return "<none>";
        }
        int trueConditions = 0;
        for (JsonNode gate : gates) {
            String conditionType = Fields.text(gate.get("conditionType"));
            for (JsonNode condition : status.path("conditions")) {
                if (Fields.text(condition.get("type")).equals(conditionType)) {
                    if (Fields.text(condition.get("status")).equals("True")) {
                        trueConditions++;
                    }
                    break;
                }
            }
        }
        return trueConditions + "/" + gates.size();
    }

    /** A terminated state's reason, or {@code Signal:N} / {@code ExitCode:N} without one. */
    private static String terminatedReason(JsonNode terminated) {
        String reason = Fields.text(terminated.get("reason"));
        if (!reason.isEmpty()) {
            return reason;
        }
        long signal = Fields.integer(terminated.get("signal"));
        return signal != 0 ? "Signal:" + signal : "ExitCode:" + Fields.integer(terminated.get("exitCode"));
    }

    /** A sidecar: an init container with {@code restartPolicy: Always}. */
    private static boolean isRestartable(JsonNode initContainer) {
        return initContainer != null
                && Fields.text(initContainer.get("restartPolicy")).equals("Always");
    }

    private static boolean hasCondition(JsonNode status, String type) {
        for (JsonNode condition : status.path("conditions")) {
            if (Fields.text(condition.get("type")).equals(type)
                    && Fields.text(condition.get("status")).equals("True")) {
                return true;
            }
        }
        return false;
    }

    private static Instant lastTerminatedAt(JsonNode containerStatus) {
        JsonNode terminated = containerStatus.path("lastState").get("terminated");
        return Fields.isSet(terminated) ? Fields.time(terminated.get("finishedAt")) : null;
    }

    private static Instant later(Instant current, Instant candidate) {
        if (candidate == null) {
            return current;
        }
        return current == null || current.isBefore(candidate) ? candidate : current;
    }

    private static String orNone(String value) {
        return value.isEmpty() ? "<none>" : value;
    }
}
