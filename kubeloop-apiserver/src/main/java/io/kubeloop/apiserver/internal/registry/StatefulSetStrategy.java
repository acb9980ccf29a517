package io.kubeloop.apiserver.internal.registry;

import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.forbidden;
import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.invalid;
import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.notSupported;
import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.required;

import io.kubeloop.apiserver.internal.registry.KubeFieldErrors.GoValue;
import io.kubeloop.model.Statuses.FieldError;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * apps/v1 StatefulSets as kube's {@code SetDefaults_StatefulSet}, {@code ValidateStatefulSet} and statefulset
 * registry strategy: OrderedReady pods, a RollingUpdate strategy with partition 0, claims retained, replicas 1, 10
 * revisions, claim templates defaulted as PersistentVolumeClaims; a selector that matches the template; and an
 * update may change only the fields kube lists in its Forbidden message.
 */
final class StatefulSetStrategy implements ResourceStrategy {

    private static final List<String> RETENTION = List.of("Retain", "Delete");
    /** The spec fields an update may change, kube 1.32's {@code ValidateStatefulSetUpdate}. */
    private static final Set<String> MUTABLE = Set.of(
            "replicas",
            "ordinals",
            "template",
            "updateStrategy",
            "revisionHistoryLimit",
            "persistentVolumeClaimRetentionPolicy",
            "minReadySeconds");

    @Override
    public void applyDefaults(ObjectNode object) {
        ObjectNode spec = WorkloadSpecs.spec(object);
        PodSpecs.putIfAbsent(spec, "podManagementPolicy", "OrderedReady");
        ObjectNode strategy = spec.get("updateStrategy") instanceof ObjectNode s ? s : spec.putObject("updateStrategy");
        if (strategy.path("type").asString("").isEmpty()) {
            strategy.put("type", "RollingUpdate");
            if (!(strategy.get("rollingUpdate") instanceof ObjectNode)) {
                strategy.putObject("rollingUpdate");
            }
        }
        if (strategy.path("type").asString("").equals("RollingUpdate")
                && strategy.get("rollingUpdate") instanceof ObjectNode rolling) {
            PodSpecs.putIfAbsent(rolling, "partition", 0);
        }
        ObjectNode retention = spec.get("persistentVolumeClaimRetentionPolicy") instanceof ObjectNode r
                ? r
                : spec.putObject("persistentVolumeClaimRetentionPolicy");
        PodSpecs.putIfAbsent(retention, "whenDeleted", "Retain");
        PodSpecs.putIfAbsent(retention, "whenScaled", "Retain");
        WorkloadSpecs.defaultReplicas(spec);
        PodSpecs.putIfAbsent(spec, "revisionHistoryLimit", 10);
        WorkloadSpecs.defaultTemplate(spec);
        for (JsonNode claim : spec.path("volumeClaimTemplates")) {
            if (claim instanceof ObjectNode c) {
                if (c.get("spec") instanceof ObjectNode claimSpec) {
                    PodSpecs.putIfAbsent(claimSpec, "volumeMode", "Filesystem");
                }
                ObjectNode status = c.get("status") instanceof ObjectNode s ? s : c.putObject("status");
                PodSpecs.putIfAbsent(status, "phase", "Pending");
            }
        }
    }

    @Override
    public void prepareForCreate(ObjectNode object) {
        WorkloadSpecs.resetStatus(object);
    }

    @Override
    public void prepareForUpdate(ObjectNode next, ObjectNode current) {
        WorkloadSpecs.generation(next, current, false);
    }

    @Override
    public List<FieldError> validate(ObjectNode object) {
        List<FieldError> errors = new ArrayList<>();
        JsonNode spec = object.path("spec");
        String policy = spec.path("podManagementPolicy").asString("");
        if (policy.isEmpty()) {
            errors.add(required("spec.podManagementPolicy"));
        } else if (!policy.equals("OrderedReady") && !policy.equals("Parallel")) {
            errors.add(invalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'"));
        }
        validateUpdateStrategy(spec.path("updateStrategy"), errors);
        JsonNode retention = spec.path("persistentVolumeClaimRetentionPolicy");
        for (String when : new String[] {"whenDeleted", "whenScaled"}) {
            String value = retention.path(when).asString("");
            if (!value.isEmpty() && !RETENTION.contains(value)) {
                errors.add(notSupported("spec.persistentVolumeClaimRetentionPolicy." + when, value, RETENTION));
            }
        }
        WorkloadSpecs.nonNegative(spec, "replicas", errors);
        WorkloadSpecs.nonNegative(spec, "minReadySeconds", errors);
        WorkloadSpecs.validateSelector(spec, "statefulset", true, errors);
        WorkloadSpecs.validateTemplate(spec, "StatefulSet", errors);
        return errors;
    }

    private static void validateUpdateStrategy(JsonNode strategy, List<FieldError> errors) {
        String type = strategy.path("type").asString("");
        JsonNode rolling = strategy.path("rollingUpdate");
        switch (type) {
            case "" -> errors.add(required("spec.updateStrategy"));
            case "OnDelete" -> {
                if (rolling.isObject()) {
                    errors.add(invalid(
                            "spec.updateStrategy.rollingUpdate",
                            new GoValue("apps.RollingUpdateStatefulSetStrategy{...}"),
                            "only allowed for updateStrategy 'RollingUpdate'"));
                }
            }
            case "RollingUpdate" -> {
                JsonNode partition = rolling.path("partition");
                if (partition.isNumber() && partition.asLong() < 0) {
                    errors.add(invalid(
                            "spec.updateStrategy.rollingUpdate.partition",
                            partition.asLong(),
                            "must be greater than or equal to 0"));
                }
            }
            default ->
                errors.add(invalid(
                        "spec.updateStrategy",
                        new GoValue("apps.StatefulSetUpdateStrategy{Type:" + KubeFieldErrors.quote(type) + "}"),
                        "must be 'RollingUpdate' or 'OnDelete'"));
        }
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode next, ObjectNode current) {
        List<FieldError> errors = validate(next);
        JsonNode nextSpec = next.path("spec");
        JsonNode currentSpec = current.path("spec");
        if (!sameExceptMutable(nextSpec, currentSpec) || !sameExceptMutable(currentSpec, nextSpec)) {
            errors.add(forbidden(
                    "spec",
                    "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
                            + "'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and "
                            + "'minReadySeconds' are forbidden"));
        }
        return errors;
    }

    /** Whether every field of {@code a} that an update may not change is the same in {@code b}. */
    private static boolean sameExceptMutable(JsonNode a, JsonNode b) {
        for (var e : a.properties()) {
            if (!MUTABLE.contains(e.getKey()) && !PodSpecs.same(e.getValue(), b.path(e.getKey()))) {
                return false;
            }
        }
        return true;
    }
}
