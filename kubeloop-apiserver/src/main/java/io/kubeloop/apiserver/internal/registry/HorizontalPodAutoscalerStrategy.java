package io.kubeloop.apiserver.internal.registry;

import static io.kubeloop.apiserver.internal.registry.FieldChecks.invalid;
import static io.kubeloop.apiserver.internal.registry.FieldChecks.required;

import io.kubeloop.model.Statuses.FieldError;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * autoscaling/v2 HorizontalPodAutoscaler, as kube's {@code SetDefaults_HorizontalPodAutoscaler} and
 * {@code ValidateHorizontalPodAutoscalerSpec}: minReplicas 1 and, without metrics, 80% average CPU utilization;
 * the scale target's kind and name are required, minReplicas is at least 1 and maxReplicas at least minReplicas.
 * (Behavior defaults, applied only when a behavior is given, are not reproduced.)
 */
final class HorizontalPodAutoscalerStrategy implements ResourceStrategy {

    @Override
    public void applyDefaults(ObjectNode hpa) {
        ObjectNode spec = JobStrategy.object(hpa, "spec");
        if (!spec.has("minReplicas")) {
            spec.put("minReplicas", 1);
        }
        if (spec.path("metrics").isEmpty()) {
            ObjectNode metric = spec.putArray("metrics").addObject();
            metric.put("type", "Resource");
            ObjectNode resource = metric.putObject("resource");
            resource.put("name", "cpu");
            ObjectNode target = resource.putObject("target");
            target.put("type", "Utilization");
            target.put("averageUtilization", 80);
        }
    }

    @Override
    public void prepareForCreate(ObjectNode hpa) {
        hpa.remove("status");
    }

    @Override
    public List<FieldError> validate(ObjectNode hpa) {
        List<FieldError> errors = new ArrayList<>();
        JsonNode spec = hpa.path("spec");
        long min = spec.path("minReplicas").asLong(1);
        long max = spec.path("maxReplicas").asLong(0);
        if (min < 1) {
            errors.add(invalid("spec.minReplicas", min, "must be greater than or equal to 1"));
        }
        if (max < 1) {
            errors.add(invalid("spec.maxReplicas", max, "must be greater than or equal to 1"));
        }
        if (max < min) {
            errors.add(invalid("spec.maxReplicas", max, "must be greater than or equal to `minReplicas`"));
        }
        JsonNode ref = spec.path("scaleTargetRef");
        if (FieldChecks.text(ref.get("kind")).isEmpty()) {
            errors.add(required("spec.scaleTargetRef.kind", ""));
        }
        if (FieldChecks.text(ref.get("name")).isEmpty()) {
            errors.add(required("spec.scaleTargetRef.name", ""));
        }
        return errors;
    }
}
