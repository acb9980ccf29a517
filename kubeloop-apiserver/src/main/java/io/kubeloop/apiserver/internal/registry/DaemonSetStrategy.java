package io.kubeloop.apiserver.internal.registry;

import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.invalid;
import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.notSupported;
import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.required;

import io.kubeloop.model.Statuses.FieldError;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * apps/v1 DaemonSets as kube's {@code SetDefaults_DaemonSet}, {@code ValidateDaemonSet} and daemonset registry
 * strategy: a RollingUpdate strategy (maxUnavailable 1, maxSurge 0), 10 revisions; a selector matching the
 * template; an immutable selector; and the template generation kube keeps in the {@code
 * deprecated.daemonset.template.generation} annotation (1 on create, bumped when the template changes).
 */
final class DaemonSetStrategy implements ResourceStrategy {

    static final String TEMPLATE_GENERATION = "deprecated.daemonset.template.generation";
    private static final List<String> STRATEGIES = List.of("OnDelete", "RollingUpdate");

    @Override
    public void applyDefaults(ObjectNode object) {
        ObjectNode spec = WorkloadSpecs.spec(object);
        ObjectNode strategy = spec.get("updateStrategy") instanceof ObjectNode s ? s : spec.putObject("updateStrategy");
        PodSpecs.putIfAbsent(strategy, "type", "RollingUpdate");
        if (strategy.path("type").asString("").equals("RollingUpdate")) {
            ObjectNode rolling =
                    strategy.get("rollingUpdate") instanceof ObjectNode r ? r : strategy.putObject("rollingUpdate");
            PodSpecs.putIfAbsent(rolling, "maxUnavailable", 1);
            PodSpecs.putIfAbsent(rolling, "maxSurge", 0);
        }
        PodSpecs.putIfAbsent(spec, "revisionHistoryLimit", 10);
        WorkloadSpecs.defaultTemplate(spec);
    }

    @Override
    public void prepareForCreate(ObjectNode object) {
        WorkloadSpecs.resetStatus(object);
        long given = annotations(object).path(TEMPLATE_GENERATION).asLong(0);
        annotations(object).put(TEMPLATE_GENERATION, Long.toString(Math.max(given, 1)));
    }

    @Override
    public void prepareForUpdate(ObjectNode next, ObjectNode current) {
        WorkloadSpecs.generation(next, current, false);
        JsonNode stored = current.path("metadata").path("annotations").path(TEMPLATE_GENERATION);
        long generation = stored.asLong(0);
        if (!PodSpecs.same(
                next.path("spec").path("template"), current.path("spec").path("template"))) {
            generation++;
        }
        annotations(next).put(TEMPLATE_GENERATION, Long.toString(Math.max(generation, 1)));
    }

    private static ObjectNode annotations(ObjectNode object) {
        ObjectNode meta = object.get("metadata") instanceof ObjectNode m ? m : object.putObject("metadata");
        return meta.get("annotations") instanceof ObjectNode a ? a : meta.putObject("annotations");
    }

    @Override
    public List<FieldError> validate(ObjectNode object) {
        List<FieldError> errors = new ArrayList<>();
        JsonNode spec = object.path("spec");
        WorkloadSpecs.validateSelector(spec, "daemonset", false, errors);
        WorkloadSpecs.validateTemplate(spec, "DaemonSet", errors);
        WorkloadSpecs.nonNegative(spec, "minReadySeconds", errors);
        WorkloadSpecs.nonNegative(spec, "revisionHistoryLimit", errors);
        JsonNode strategy = spec.path("updateStrategy");
        String type = strategy.path("type").asString("");
        if (type.isEmpty()) {
            errors.add(required("spec.updateStrategy.type"));
        } else if (!STRATEGIES.contains(type)) {
            errors.add(notSupported("spec.updateStrategy.type", type, STRATEGIES));
        } else if (type.equals("RollingUpdate")) {
            JsonNode rolling = strategy.path("rollingUpdate");
            if (!rolling.isObject()) {
                errors.add(required("spec.updateStrategy.rollingUpdate"));
            } else {
                long unavailable = WorkloadSpecs.intOrPercent(
                        rolling.path("maxUnavailable"), "spec.updateStrategy.rollingUpdate.maxUnavailable", errors);
                long surge = WorkloadSpecs.intOrPercent(
                        rolling.path("maxSurge"), "spec.updateStrategy.rollingUpdate.maxSurge", errors);
                if (unavailable == 0 && surge == 0) {
                    errors.add(invalid(
                            "spec.updateStrategy.rollingUpdate.maxUnavailable",
                            rolling.path("maxUnavailable"),
                            "may not be 0 when `maxSurge` is 0"));
                }
            }
        }
        return errors;
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode next, ObjectNode current) {
        List<FieldError> errors = validate(next);
        WorkloadSpecs.selectorImmutable(next, current, errors);
        return errors;
    }
}
