package io.kubeloop.apiserver.internal.registry;

import static io.kubeloop.apiserver.internal.registry.FieldChecks.invalid;
import static io.kubeloop.apiserver.internal.registry.FieldChecks.notSupported;
import static io.kubeloop.apiserver.internal.registry.FieldChecks.required;

import io.kubeloop.model.Statuses.FieldError;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * batch/v1 CronJob, as kube's {@code SetDefaults_CronJob} and {@code pkg/registry/batch/cronjob} strategy:
 * concurrencyPolicy Allow, suspend false, successfulJobsHistoryLimit 3, failedJobsHistoryLimit 1. Validation: the
 * schedule parses as cron ({@link CronSchedule}), the time zone is a known IANA zone, the name fits 52
 * characters (the controller appends an 11-character suffix), the job template has no selector and a valid
 * job spec.
 */
final class CronJobStrategy implements ResourceStrategy {

    private static final List<String> CONCURRENCY = List.of("Allow", "Forbid", "Replace");

    @Override
    public void applyDefaults(ObjectNode cronJob) {
        ObjectNode spec = JobStrategy.object(cronJob, "spec");
        if (!spec.has("concurrencyPolicy")) {
            spec.put("concurrencyPolicy", "Allow");
        }
        if (!spec.has("suspend")) {
            spec.put("suspend", false);
        }
        if (!spec.has("successfulJobsHistoryLimit")) {
            spec.put("successfulJobsHistoryLimit", 3);
        }
        if (!spec.has("failedJobsHistoryLimit")) {
            spec.put("failedJobsHistoryLimit", 1);
        }
    }

    @Override
    public void prepareForCreate(ObjectNode cronJob) {
        cronJob.remove("status");
    }

    @Override
    public List<FieldError> validate(ObjectNode cronJob) {
        List<FieldError> errors = new ArrayList<>();
        String name = FieldChecks.text(cronJob.path("metadata").get("name"));
        if (name.length() > 52) {
            errors.add(invalid("metadata.name", name, "must be no more than 52 characters"));
        }
        JsonNode spec = cronJob.path("spec");
        String schedule = FieldChecks.text(spec.get("schedule"));
        if (schedule.isEmpty()) {
            errors.add(required("spec.schedule", ""));
        } else {
            String error = CronSchedule.error(schedule);
            if (error != null) {
                errors.add(invalid("spec.schedule", schedule, error));
            } else if (schedule.contains("TZ")) {
                errors.add(invalid(
                        "spec.schedule",
                        schedule,
                        spec.has("timeZone")
                                ? "cannot use both timeZone field and TZ or CRON_TZ in schedule"
                                : "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"));
            }
        }
        JsonNode zone = spec.get("timeZone");
        if (zone != null && zone.isString()) {
            validateTimeZone(errors, zone.asString());
        }
        String policy = FieldChecks.text(spec.get("concurrencyPolicy"));
        if (policy.isEmpty()) {
            errors.add(required("spec.concurrencyPolicy", ""));
        } else if (!CONCURRENCY.contains(policy)) {
            errors.add(notSupported("spec.concurrencyPolicy", policy, CONCURRENCY));
        }
        FieldChecks.nonNegative(errors, spec, "startingDeadlineSeconds", "spec.startingDeadlineSeconds");
        FieldChecks.nonNegative(errors, spec, "successfulJobsHistoryLimit", "spec.successfulJobsHistoryLimit");
        FieldChecks.nonNegative(errors, spec, "failedJobsHistoryLimit", "spec.failedJobsHistoryLimit");
        JsonNode jobSpec = spec.path("jobTemplate").path("spec");
        JobStrategy.validateJobSpec(errors, jobSpec, "spec.jobTemplate.spec", false);
        if (jobSpec.has("selector") && !jobSpec.get("selector").isNull()) {
            errors.add(invalid(
                    "spec.jobTemplate.spec.selector", jobSpec.get("selector"), "`selector` will be auto-generated"));
        }
        if (jobSpec.path("manualSelector").asBoolean(false)) {
            errors.add(notSupported(
                    "spec.jobTemplate.spec.manualSelector", jobSpec.get("manualSelector"), List.of("nil", "false")));
        }
        return errors;
    }

    /** Go's {@code time.LoadLocation} errors as kube reports them; "Local" is refused (not explicit). */
    private static void validateTimeZone(List<FieldError> errors, String zone) {
        if (zone.equalsIgnoreCase("Local")) {
            errors.add(invalid(
                    "spec.timeZone",
                    zone,
                    "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"));
            return;
        }
        // Go loads IANA names from the tz database; the JDK's region ids are the same database
        if (!zone.isEmpty()
                && !zone.equals("UTC")
                && !ZoneId.getAvailableZoneIds().contains(zone)) {
            errors.add(invalid("spec.timeZone", zone, "unknown time zone " + zone));
        }
    }
}
