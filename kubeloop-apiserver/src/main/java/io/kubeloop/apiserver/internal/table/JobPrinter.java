package io.kubeloop.apiserver.internal.table;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Jobs (kube's {@code printJob}): STATUS from the conditions (Complete, Failed, Terminating, Suspended,
 * FailureTarget, SuccessCriteriaMet, else Running), COMPLETIONS {@code succeeded/completions} ({@code 0/1 of 3}
 * for a parallel job without completions), DURATION from start to completion (or to now), AGE; wide: containers,
 * images, selector.
 */
final class JobPrinter implements Printer {

    /** {@code JobSpec.selector}'s documentation, also the CronJob's wide Selector column. */
    static final String SELECTOR = "A label query over pods that should match the pod count. Normally, the system "
            + "sets this field for you. More info: "
            + "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors";

    private static final List<Column> COLUMNS = List.of(
            Column.NAME,
            Column.string("Status", "Status of the job."),
            Column.string(
                    "Completions",
                    "The number of pods which reached phase Succeeded. The value increases monotonically for a "
                            + "given spec. However, it may decrease in reaction to scale down of elastic indexed jobs."),
            Column.string("Duration", "Time required to complete the job."),
            Column.AGE,
            Column.containers(),
            Column.images(),
            Column.wide("Selector", JobPrinter.SELECTOR));

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode job, Instant now) {
        JsonNode spec = job.path("spec");
        JsonNode status = job.path("status");
        long succeeded = Fields.integer(status.get("succeeded"));
        String completions;
        if (spec.path("completions").isNumber()) {
            completions = succeeded + "/" + spec.path("completions").asLong();
        } else {
            long parallelism = Fields.integer(spec.get("parallelism"));
            completions = parallelism > 1 ? succeeded + "/1 of " + parallelism : succeeded + "/1";
        }
        Instant start = Fields.time(status.get("startTime"));
        Instant completion = Fields.time(status.get("completionTime"));
        String duration = "";
        if (start != null) {
            duration = HumanDuration.format(Duration.between(start, completion == null ? now : completion));
        }
        ContainerCells containers = ContainerCells.ofTemplate(job);
        return Row.of(
                Fields.text(job.path("metadata").get("name")),
                status(job),
                completions,
                duration,
                Ages.of(job, now),
                containers.names(),
                containers.images(),
                Labels.formatSelector(spec.get("selector")));
    }

    private static String status(ObjectNode job) {
        JsonNode conditions = job.path("status").path("conditions");
        if (has(conditions, "Complete")) {
            return "Complete";
        } else if (has(conditions, "Failed")) {
            return "Failed";
        } else if (!Fields.text(job.path("metadata").get("deletionTimestamp")).isEmpty()) {
            return "Terminating";
        } else if (has(conditions, "Suspended")) {
            return "Suspended";
        } else if (has(conditions, "FailureTarget")) {
            return "FailureTarget";
        } else if (has(conditions, "SuccessCriteriaMet")) {
            return "SuccessCriteriaMet";
        }
        return "Running";
    }

    /** kube's {@code hasJobCondition}: a condition of that type with status True. */
    private static boolean has(JsonNode conditions, String type) {
        for (JsonNode c : conditions) {
            if (Fields.text(c.get("type")).equals(type)
                    && Fields.text(c.get("status")).equals("True")) {
                return true;
            }
        }
        return false;
    }
}
