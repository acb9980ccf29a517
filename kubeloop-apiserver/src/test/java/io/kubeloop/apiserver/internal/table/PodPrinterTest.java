package io.kubeloop.apiserver.internal.table;

import static io.kubeloop.apiserver.internal.table.TestObjects.NOW;
import static io.kubeloop.apiserver.internal.table.TestObjects.object;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** READY / STATUS / RESTARTS of kube-apiserver's pod printer, one pod state per case. */
class PodPrinterTest {

    private static final PodPrinter PRINTER = new PodPrinter();
    private static final String ONE = "\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":\"nginx\"}]}";
    private static final String TWO = "\"spec\":{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]}";
    private static final String INIT2 = "\"spec\":{\"initContainers\":[{\"name\":\"i1\"},{\"name\":\"i2\"}],"
            + "\"containers\":[{\"name\":\"app\"}]}";

    static Stream<Arguments> states() {
        return Stream.of(
                Arguments.of("new pod, no status", ONE, "0/1", "Pending", "0"),
                Arguments.of("pending", ONE + ",\"status\":{\"phase\":\"Pending\"}", "0/1", "Pending", "0"),
                Arguments.of(
                        "running and ready",
                        ONE + ",\"status\":{\"phase\":\"Running\",\"containerStatuses\":["
                                + "{\"name\":\"app\",\"ready\":true,\"restartCount\":0,\"state\":{\"running\":{}}}]}",
                        "1/1",
                        "Running",
                        "0"),
                Arguments.of(
                        "running, one of two ready",
                        TWO + ",\"status\":{\"phase\":\"Running\","
                                + "\"containerStatuses\":["
                                + "{\"name\":\"a\",\"ready\":true,\"state\":{\"running\":{}}},"
                                + "{\"name\":\"b\",\"ready\":false,\"state\":{\"running\":{}}}]}",
                        "1/2",
                        "Running",
                        "0"),
                Arguments.of(
                        "image pull backoff",
                        ONE + ",\"status\":{\"phase\":\"Pending\",\"containerStatuses\":["
                                + "{\"name\":\"app\",\"ready\":false,\"state\":{\"waiting\":{\"reason\":\"ImagePullBackOff\"}}}]}",
                        "0/1",
                        "ImagePullBackOff",
                        "0"),
                Arguments.of(
                        "crash loop, restarted 3 times, last exit 5m ago",
                        ONE + ",\"status\":{\"phase\":"
                                + "\"Running\",\"containerStatuses\":[{\"name\":\"app\",\"ready\":false,\"restartCount\":3,"
                                + "\"state\":{\"waiting\":{\"reason\":\"CrashLoopBackOff\"}},\"lastState\":{\"terminated\":"
                                + "{\"exitCode\":1,\"reason\":\"Error\",\"finishedAt\":\"2026-01-01T00:55:00Z\"}}}]}",
                        "0/1",
                        "CrashLoopBackOff",
                        "3 (5m ago)"),
                Arguments.of(
                        "restarts without a last termination time print no age",
                        ONE + ",\"status\":{\"phase\":"
                                + "\"Running\",\"containerStatuses\":[{\"name\":\"app\",\"ready\":true,\"restartCount\":2,"
                                + "\"state\":{\"running\":{}}}]}",
                        "1/1",
                        "Running",
                        "2"),
                Arguments.of(
                        "restarts sum over containers, latest termination wins",
                        TWO + ",\"status\":{\"phase\":"
                                + "\"Running\",\"containerStatuses\":["
                                + "{\"name\":\"a\",\"ready\":true,\"restartCount\":1,\"state\":{\"running\":{}},\"lastState\":"
                                + "{\"terminated\":{\"exitCode\":1,\"finishedAt\":\"2026-01-01T00:00:00Z\"}}},"
                                + "{\"name\":\"b\",\"ready\":true,\"restartCount\":4,\"state\":{\"running\":{}},\"lastState\":"
                                + "{\"terminated\":{\"exitCode\":1,\"finishedAt\":\"2026-01-01T00:59:30Z\"}}}]}",
                        "2/2",
                        "Running",
                        "5 (30s ago)"),
                Arguments.of(
                        "completed",
                        ONE + ",\"status\":{\"phase\":\"Succeeded\",\"containerStatuses\":["
                                + "{\"name\":\"app\",\"ready\":false,\"state\":{\"terminated\":{\"exitCode\":0,"
                                + "\"reason\":\"Completed\"}}}]}",
                        "0/1",
                        "Completed",
                        "0"),
                Arguments.of(
                        "error",
                        ONE + ",\"status\":{\"phase\":\"Failed\",\"containerStatuses\":["
                                + "{\"name\":\"app\",\"state\":{\"terminated\":{\"exitCode\":1,\"reason\":\"Error\"}}}]}",
                        "0/1",
                        "Error",
                        "0"),
                Arguments.of(
                        "terminated without a reason: exit code",
                        ONE + ",\"status\":{\"phase\":\"Failed\","
                                + "\"containerStatuses\":[{\"name\":\"app\",\"state\":{\"terminated\":{\"exitCode\":2}}}]}",
                        "0/1",
                        "ExitCode:2",
                        "0"),
                Arguments.of(
                        "terminated without a reason: signal",
                        ONE + ",\"status\":{\"phase\":\"Failed\","
                                + "\"containerStatuses\":[{\"name\":\"app\",\"state\":{\"terminated\":{\"exitCode\":137,"
                                + "\"signal\":9}}}]}",
                        "0/1",
                        "Signal:9",
                        "0"),
                Arguments.of(
                        "one container completed, one still running and pod ready",
                        TWO + ",\"status\":"
                                + "{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}],"
                                + "\"containerStatuses\":["
                                + "{\"name\":\"a\",\"ready\":true,\"state\":{\"running\":{}}},"
                                + "{\"name\":\"b\",\"ready\":false,\"state\":{\"terminated\":{\"exitCode\":0,"
                                + "\"reason\":\"Completed\"}}}]}",
                        "1/2",
                        "Running",
                        "0"),
                Arguments.of(
                        "one container completed, one still running, pod not ready",
                        TWO + ",\"status\":"
                                + "{\"phase\":\"Running\",\"containerStatuses\":["
                                + "{\"name\":\"a\",\"ready\":true,\"state\":{\"running\":{}}},"
                                + "{\"name\":\"b\",\"ready\":false,\"state\":{\"terminated\":{\"exitCode\":0,"
                                + "\"reason\":\"Completed\"}}}]}",
                        "1/2",
                        "NotReady",
                        "0"),
                Arguments.of(
                        "status reason replaces the phase",
                        ONE + ",\"status\":{\"phase\":\"Failed\"," + "\"reason\":\"Evicted\"}",
                        "0/1",
                        "Evicted",
                        "0"),
                Arguments.of(
                        "scheduling gated",
                        ONE + ",\"status\":{\"phase\":\"Pending\",\"conditions\":["
                                + "{\"type\":\"PodScheduled\",\"status\":\"False\",\"reason\":\"SchedulingGated\"}]}",
                        "0/1",
                        "SchedulingGated",
                        "0"),
                Arguments.of(
                        "init containers not started",
                        INIT2 + ",\"status\":{\"phase\":\"Pending\","
                                + "\"initContainerStatuses\":["
                                + "{\"name\":\"i1\",\"state\":{\"waiting\":{\"reason\":\"PodInitializing\"}}},"
                                + "{\"name\":\"i2\",\"state\":{\"waiting\":{}}}]}",
                        "0/1",
                        "Init:0/2",
                        "0"),
                Arguments.of(
                        "second init container running",
                        INIT2 + ",\"status\":{\"phase\":\"Pending\","
                                + "\"initContainerStatuses\":["
                                + "{\"name\":\"i1\",\"state\":{\"terminated\":{\"exitCode\":0,\"reason\":\"Completed\"}}},"
                                + "{\"name\":\"i2\",\"state\":{\"running\":{}}}]}",
                        "0/1",
                        "Init:1/2",
                        "0"),
                Arguments.of(
                        "init container crash looping, its restarts count",
                        INIT2 + ",\"status\":{\"phase\":"
                                + "\"Pending\",\"initContainerStatuses\":[{\"name\":\"i1\",\"restartCount\":4,\"state\":"
                                + "{\"waiting\":{\"reason\":\"CrashLoopBackOff\"}}}]}",
                        "0/1",
                        "Init:CrashLoopBackOff",
                        "4"),
                Arguments.of(
                        "init container failed with a reason",
                        INIT2 + ",\"status\":{\"phase\":\"Pending\","
                                + "\"initContainerStatuses\":[{\"name\":\"i1\",\"state\":{\"terminated\":{\"exitCode\":1,"
                                + "\"reason\":\"Error\"}}}]}",
                        "0/1",
                        "Init:Error",
                        "0"),
                Arguments.of(
                        "init container failed without a reason",
                        INIT2 + ",\"status\":{\"phase\":\"Pending\","
                                + "\"initContainerStatuses\":[{\"name\":\"i1\",\"state\":{\"terminated\":{\"exitCode\":3}}}]}",
                        "0/1",
                        "Init:ExitCode:3",
                        "0"),
                Arguments.of(
                        "started sidecar counts as a ready container",
                        "\"spec\":{\"initContainers\":[{\"name\":"
                                + "\"proxy\",\"restartPolicy\":\"Always\"}],\"containers\":[{\"name\":\"app\"}]},"
                                + "\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Initialized\",\"status\":"
                                + "\"True\"}],\"initContainerStatuses\":[{\"name\":\"proxy\",\"started\":true,\"ready\":true,"
                                + "\"restartCount\":1,\"state\":{\"running\":{}}}],\"containerStatuses\":[{\"name\":\"app\","
                                + "\"ready\":true,\"state\":{\"running\":{}}}]}",
                        "2/2",
                        "Running",
                        "1"),
                Arguments.of(
                        "being deleted",
                        ONE + ",\"status\":{\"phase\":\"Running\",\"containerStatuses\":["
                                + "{\"name\":\"app\",\"ready\":true,\"state\":{\"running\":{}}}]}",
                        "1/1",
                        "Terminating",
                        "0"),
                Arguments.of(
                        "deleted on a lost node",
                        ONE + ",\"status\":{\"phase\":\"Running\",\"reason\":" + "\"NodeLost\"}",
                        "0/1",
                        "Unknown",
                        "0"),
                Arguments.of(
                        "a terminal pod being deleted keeps its status",
                        ONE + ",\"status\":{\"phase\":"
                                + "\"Succeeded\",\"containerStatuses\":[{\"name\":\"app\",\"state\":{\"terminated\":"
                                + "{\"exitCode\":0,\"reason\":\"Completed\"}}}]}",
                        "0/1",
                        "Completed",
                        "0"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("states")
    void readyStatusRestarts(String description, String fields, String ready, String status, String restarts) {
        var pod = object("web", fields);
        if (description.contains("deleted")) {
            ((tools.jackson.databind.node.ObjectNode) pod.get("metadata"))
                    .put("deletionTimestamp", "2026-01-01T00:59:00Z");
        }
        List<Object> cells = PRINTER.row(pod, NOW).cells();
        assertThat(cells.subList(0, 5)).containsExactly("web", ready, status, restarts, "5m");
    }

    @Test
    void wideCellsAndColumns() {
        var pod = object(
                "web",
                "\"spec\":{\"nodeName\":\"node-1\",\"containers\":[{\"name\":\"app\"}],"
                        + "\"readinessGates\":[{\"conditionType\":\"a\"},{\"conditionType\":\"b\"}]},"
                        + "\"status\":{\"phase\":\"Running\",\"podIP\":\"10.0.0.9\",\"podIPs\":[{\"ip\":\"10.0.0.9\"},"
                        + "{\"ip\":\"fd00::9\"}],\"nominatedNodeName\":\"node-2\",\"conditions\":["
                        + "{\"type\":\"a\",\"status\":\"True\"},{\"type\":\"b\",\"status\":\"False\"}]}");
        assertThat(PRINTER.row(pod, NOW).cells().subList(5, 9)).containsExactly("10.0.0.9", "node-1", "node-2", "1/2");
        assertThat(PRINTER.columns())
                .extracting(Column::name)
                .containsExactly(
                        "Name",
                        "Ready",
                        "Status",
                        "Restarts",
                        "Age",
                        "IP",
                        "Node",
                        "Nominated Node",
                        "Readiness Gates");
        assertThat(PRINTER.columns()).extracting(Column::priority).containsExactly(0, 0, 0, 0, 0, 1, 1, 1, 1);
    }

    @Test
    void unscheduledPodPrintsNoneAndPodIpFallsBackToTheSingularField() {
        var unscheduled = object("a", ONE);
        assertThat(PRINTER.row(unscheduled, NOW).cells().subList(5, 9))
                .containsExactly("<none>", "<none>", "<none>", "<none>");
        var legacy = object("b", ONE + ",\"status\":{\"podIP\":\"10.1.2.3\"}");
        assertThat(PRINTER.row(legacy, NOW).cells().get(5)).isEqualTo("10.1.2.3");
    }

    @Test
    void finishedPodsCarryTheCompletedRowCondition() {
        var succeeded = object("a", ONE + ",\"status\":{\"phase\":\"Succeeded\"}");
        assertThat(PRINTER.row(succeeded, NOW).conditions())
                .containsExactly(
                        new Row.Condition("Completed", "True", "Succeeded", "The pod has completed successfully."));
        var failed = object("b", ONE + ",\"status\":{\"phase\":\"Failed\"}");
        assertThat(PRINTER.row(failed, NOW).conditions())
                .extracting(Row.Condition::reason)
                .containsExactly("Failed");
        assertThat(PRINTER.row(object("c", ONE), NOW).conditions()).isEmpty();
    }
}
