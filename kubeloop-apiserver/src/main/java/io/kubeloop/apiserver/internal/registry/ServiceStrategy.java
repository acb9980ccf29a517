package io.kubeloop.apiserver.internal.registry;

import static io.kubeloop.apiserver.internal.registry.ObjectMetaValidation.invalid;
import static io.kubeloop.apiserver.internal.registry.ObjectMetaValidation.notSupported;
import static io.kubeloop.apiserver.internal.registry.ObjectMetaValidation.required;

import io.kubeloop.model.Statuses.FieldError;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * kube's Service registry strategy and {@code SetDefaults_Service}: {@code type: ClusterIP}, {@code sessionAffinity:
 * None}, port {@code protocol: TCP} and {@code targetPort} = {@code port}, {@code internalTrafficPolicy: Cluster},
 * {@code externalTrafficPolicy: Cluster} on NodePort and LoadBalancer Services, {@code allocateLoadBalancerNodePorts:
 * true} on LoadBalancers; status reset on create; validation of type, ports (name required when several, unique names
 * and protocol/port pairs, port range, protocol) and session affinity. Addresses (cluster IPs, node ports, IP
 * families) are {@code ServiceAddresses}', which runs after this strategy.
 */
final class ServiceStrategy implements ResourceStrategy {

    private static final List<String> TYPES = List.of("ClusterIP", "ExternalName", "LoadBalancer", "NodePort");
    private static final List<String> PROTOCOLS = List.of("SCTP", "TCP", "UDP");
    private static final List<String> AFFINITIES = List.of("ClientIP", "None");
    private static final List<String> EXTERNAL_POLICIES = List.of("Cluster", "Local");
    private static final List<String> INTERNAL_POLICIES = List.of("Cluster", "Local");

    @Override
    public void applyDefaults(ObjectNode object) {
        ObjectNode spec = object.get("spec") instanceof ObjectNode s ? s : object.putObject("spec");
        if (spec.path("sessionAffinity").asString("").isEmpty()) {
            spec.put("sessionAffinity", "None");
        }
        if (spec.path("sessionAffinity").asString("").equals("None")) {
            spec.remove("sessionAffinityConfig");
        }
        if (spec.path("type").asString("").isEmpty()) {
            spec.put("type", "ClusterIP");
        }
        String type = spec.path("type").asString("");
        if (spec.get("ports") instanceof ArrayNode ports) {
            for (JsonNode p : ports) {
                if (!(p instanceof ObjectNode port)) {
                    continue;
                }
                if (port.path("protocol").asString("").isEmpty()) {
                    port.put("protocol", "TCP");
                }
                JsonNode target = port.get("targetPort");
                if ((target == null
                                || target.isNull()
                                || (target.isNumber() && target.asInt() == 0)
                                || (target.isString() && target.asString().isEmpty()))
                        && port.get("port") instanceof JsonNode number
                        && number.isNumber()) {
                    port.put("targetPort", number.asInt());
                }
            }
        }
        boolean externallyAccessible = type.equals("LoadBalancer")
                || type.equals("NodePort")
                || (type.equals("ClusterIP") && !spec.path("externalIPs").isEmpty());
        if (externallyAccessible
                && spec.path("externalTrafficPolicy").asString("").isEmpty()) {
            spec.put("externalTrafficPolicy", "Cluster");
        }
        if ((type.equals("ClusterIP") || type.equals("NodePort") || type.equals("LoadBalancer"))
                && spec.path("internalTrafficPolicy").asString("").isEmpty()) {
            spec.put("internalTrafficPolicy", "Cluster");
        }
        if (type.equals("LoadBalancer") && !spec.has("allocateLoadBalancerNodePorts")) {
            spec.put("allocateLoadBalancerNodePorts", true);
        }
    }

    @Override
    public void prepareForCreate(ObjectNode object) {
        object.putObject("status").putObject("loadBalancer");
    }

    @Override
    public List<FieldError> validate(ObjectNode object) {
        List<FieldError> errors = new ArrayList<>(0);
        JsonNode spec = object.path("spec");
        String type = spec.path("type").asString("");
        if (!TYPES.contains(type)) {
            errors.add(notSupported("spec.type", type, TYPES));
        }
        boolean headless = spec.path("clusterIP").asString("").equals("None");
        JsonNode ports = spec.path("ports");
        if (ports.isEmpty() && !headless && !type.equals("ExternalName")) {
            errors.add(required("spec.ports"));
        }
        Set<String> names = new HashSet<>();
        Set<String> protocolPorts = new HashSet<>();
        for (int i = 0; i < ports.size(); i++) {
            validatePort(ports.get(i), i, ports.size() > 1, names, errors);
            JsonNode port = ports.get(i);
            String protocol = port.path("protocol").asString("");
            int number = port.path("port").asInt(0);
            if (!protocolPorts.add(protocol + "/" + number)) {
                errors.add(new FieldError(
                        "Duplicate value",
                        "spec.ports[" + i + "]",
                        "core.ServicePort{Name:\"\", Protocol:\"" + protocol + "\", AppProtocol:(*string)(nil), Port:"
                                + number + ", TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, "
                                + "NodePort:0}"));
            }
        }
        String affinity = spec.path("sessionAffinity").asString("");
        if (!AFFINITIES.contains(affinity)) {
            errors.add(notSupported("spec.sessionAffinity", affinity, AFFINITIES));
        }
        String external = spec.path("externalTrafficPolicy").asString("");
        if (!external.isEmpty() && !EXTERNAL_POLICIES.contains(external)) {
            errors.add(notSupported("spec.externalTrafficPolicy", external, EXTERNAL_POLICIES));
        }
        String internal = spec.path("internalTrafficPolicy").asString("");
        if (!internal.isEmpty() && !INTERNAL_POLICIES.contains(internal)) {
            errors.add(notSupported("spec.internalTrafficPolicy", internal, INTERNAL_POLICIES));
        }
        if (type.equals("ExternalName")) {
            String externalName = spec.path("externalName").asString("");
            String clean =
                    externalName.endsWith(".") ? externalName.substring(0, externalName.length() - 1) : externalName;
            if (clean.isEmpty()) {
                errors.add(required("spec.externalName"));
            } else {
                for (String message : ObjectMetaValidation.dns1123SubdomainErrors(clean)) {
                    errors.add(invalid("spec.externalName", clean, message));
                }
            }
        }
        return errors;
    }

    /** kube's {@code validateServicePort}. */
    private static void validatePort(
            JsonNode port, int i, boolean requireName, Set<String> names, List<FieldError> errors) {
        String path = "spec.ports[" + i + "]";
        String name = port.path("name").asString("");
        if (requireName && name.isEmpty()) {
            errors.add(required(path + ".name"));
        } else if (!name.isEmpty()) {
            for (String message : ObjectMetaValidation.dns1123LabelErrors(name)) {
                errors.add(invalid(path + ".name", name, message));
            }
            if (!names.add(name)) {
                errors.add(new FieldError("Duplicate value", path + ".name", ObjectMetaValidation.quote(name)));
            }
        }
        int number = port.path("port").asInt(0);
        if (number < 1 || number > 65535) {
            errors.add(new FieldError(
                    "Invalid value", path + ".port", number + ": must be between 1 and 65535, inclusive"));
        }
        String protocol = port.path("protocol").asString("");
        if (protocol.isEmpty()) {
            errors.add(required(path + ".protocol"));
        } else if (!PROTOCOLS.contains(protocol)) {
            errors.add(notSupported(path + ".protocol", protocol, PROTOCOLS));
        }
        JsonNode target = port.path("targetPort");
        if (target.isString()) {
            for (String message : ObjectMetaValidation.portNameErrors(target.asString())) {
                errors.add(invalid(path + ".targetPort", target.asString(), message));
            }
        } else if (target.isNumber() && (target.asInt() < 1 || target.asInt() > 65535)) {
            errors.add(new FieldError(
                    "Invalid value",
                    path + ".targetPort",
                    target.asInt() + ": must be between 1 and 65535, inclusive"));
        }
    }
}
