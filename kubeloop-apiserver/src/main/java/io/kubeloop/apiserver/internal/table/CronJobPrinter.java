package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * CronJobs (kube's {@code printCronJob}): SCHEDULE, TIMEZONE ({@code <none>}), SUSPEND (a boolean cell,
 * {@code <unset>} when absent), ACTIVE (number of active jobs), LAST SCHEDULE ({@code <none>}), AGE; wide: the job
 * template's containers, images and selector.
 */
final class CronJobPrinter implements Printer {

    private static final List<Column> COLUMNS = List.of(
            Column.NAME,
            Column.string("Schedule", "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron."),
            Column.string(
                    "Timezone",
                    "The time zone name for the given schedule, see "
                            + "https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this "
                            + "will default to the time zone of the kube-controller-manager process. The set of valid "
                            + "time zone names and the time zone offset is loaded from the system-wide time zone "
                            + "database by the API server during CronJob validation and the controller manager "
                            + "during execution. If no system-wide time zone database can be found a bundled version "
                            + "of the database is used instead. If the time zone name becomes invalid during the "
                            + "lifetime of a CronJob or due to a change in host configuration, the controller will "
                            + "stop creating new new Jobs and will create a system event with the reason "
                            + "UnknownTimeZone. More information can be found in "
                            + "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones"),
            new Column(
                    "Suspend",
                    "boolean",
                    "",
                    "This flag tells the controller to suspend subsequent executions, it does not apply to already "
                            + "started executions.  Defaults to false.",
                    0),
            Column.integer("Active", "A list of pointers to currently running jobs."),
            Column.string("Last Schedule", "Information when was the last time the job was successfully scheduled."),
            Column.AGE,
            Column.containers(),
            Column.images(),
            Column.wide("Selector", JobPrinter.SELECTOR));

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode cronJob, Instant now) {
        JsonNode spec = cronJob.path("spec");
        JsonNode status = cronJob.path("status");
        JsonNode last = status.get("lastScheduleTime");
        String lastSchedule = Fields.text(last).isEmpty() ? "<none>" : Ages.since(last, now);
        String timeZone = Fields.text(spec.get("timeZone"));
        JsonNode suspend = spec.get("suspend");
        // printBoolPtr: "True"/"False" strings (the column says boolean), "<unset>" for nil
        String suspendCell =
                suspend != null && suspend.isBoolean() ? (suspend.asBoolean() ? "True" : "False") : "<unset>";
        JsonNode jobSpec = spec.path("jobTemplate").path("spec");
        ContainerCells containers = ContainerCells.of(jobSpec.path("template").path("spec"));
        return Row.of(
                Fields.text(cronJob.path("metadata").get("name")),
                Fields.text(spec.get("schedule")),
                spec.path("timeZone").isString() ? timeZone : "<none>",
                suspendCell,
                (long) status.path("active").size(),
                lastSchedule,
                Ages.of(cronJob, now),
                containers.names(),
                containers.images(),
                Labels.formatSelector(jobSpec.get("selector")));
    }
}
