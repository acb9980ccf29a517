package io.kubeloop.apiserver.internal.registry;

import static io.kubeloop.apiserver.internal.registry.FieldChecks.invalid;
import static io.kubeloop.apiserver.internal.registry.FieldChecks.notSupported;
import static io.kubeloop.apiserver.internal.registry.FieldChecks.required;

import io.kubeloop.model.Statuses.FieldError;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * networking.k8s.io/v1 Ingress, as kube's {@code ValidateIngressSpec}: a default backend or rules; each HTTP
 * rule has paths, each path a pathType (Exact, Prefix or ImplementationSpecific; the first two need an absolute
 * path) and a backend naming a service and a port (name or number, not both) or a resource; hosts and the
 * class name are DNS subdomains (a host may start with {@code *.}).
 */
final class IngressStrategy implements ResourceStrategy {

    private static final List<String> PATH_TYPES = List.of("Exact", "ImplementationSpecific", "Prefix");
    private static final String DNS1123_SUBDOMAIN = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
    private static final String SUBDOMAIN_MESSAGE = "a lowercase RFC 1123 subdomain must consist of lower case "
            + "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
            + "'example.com', regex used for validation is "
            + "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

    @Override
    public void prepareForCreate(ObjectNode ingress) {
        ingress.remove("status");
    }

    @Override
    public List<FieldError> validate(ObjectNode ingress) {
        List<FieldError> errors = new ArrayList<>();
        JsonNode spec = ingress.path("spec");
        JsonNode rules = spec.path("rules");
        boolean hasDefault =
                spec.has("defaultBackend") && !spec.get("defaultBackend").isNull();
        if (rules.isEmpty() && !hasDefault) {
            errors.add(FieldChecks.invalidGo(
                    "spec", "[]networking.IngressRule(nil)", "either `defaultBackend` or `rules` must be specified"));
        }
        if (hasDefault) {
            backend(errors, spec.get("defaultBackend"), "spec.defaultBackend");
        }
        JsonNode className = spec.get("ingressClassName");
        if (className != null && className.isString() && !subdomain(className.asString())) {
            errors.add(invalid("spec.ingressClassName", className, SUBDOMAIN_MESSAGE));
        }
        for (int i = 0; i < rules.size(); i++) {
            JsonNode rule = rules.get(i);
            String path = "spec.rules[" + i + "]";
            String host = FieldChecks.text(rule.get("host"));
            if (!host.isEmpty()) {
                String check = host.startsWith("*.") ? host.substring(2) : host;
                if (!subdomain(check)) {
                    errors.add(invalid(path + ".host", host, SUBDOMAIN_MESSAGE));
                }
            }
            JsonNode http = rule.get("http");
            if (http == null || http.isNull()) {
                continue;
            }
            JsonNode paths = http.path("paths");
            if (paths.isEmpty()) {
                errors.add(required(path + ".http.paths", ""));
            }
            for (int j = 0; j < paths.size(); j++) {
                httpPath(errors, paths.get(j), path + ".http.paths[" + j + "]");
            }
        }
        return errors;
    }

    private static void httpPath(List<FieldError> errors, JsonNode p, String path) {
        JsonNode pathType = p.get("pathType");
        if (pathType == null || pathType.isNull()) {
            errors.add(required(path + ".pathType", "pathType must be specified"));
            return;
        }
        String type = FieldChecks.text(pathType);
        if (!PATH_TYPES.contains(type)) {
            errors.add(
                    notSupported(path + ".pathType", pathType, List.of("Exact", "ImplementationSpecific", "Prefix")));
            return;
        }
        String value = FieldChecks.text(p.get("path"));
        if ((type.equals("Exact") || type.equals("Prefix")) && !value.startsWith("/")) {
            errors.add(invalid(path + ".path", value, "must be an absolute path"));
        }
        backend(errors, p.get("backend"), path + ".backend");
    }

    /** kube's {@code validateIngressBackend}. */
    private static void backend(List<FieldError> errors, JsonNode backend, String path) {
        boolean resource = backend != null
                && backend.has("resource")
                && !backend.get("resource").isNull();
        boolean service = backend != null
                && backend.has("service")
                && !backend.get("service").isNull();
        if (resource && service) {
            errors.add(invalid(path, "", "cannot set both resource and service backends"));
        } else if (service) {
            JsonNode svc = backend.get("service");
            if (FieldChecks.text(svc.get("name")).isEmpty()) {
                errors.add(required(path + ".service.name", ""));
            }
            boolean portName = !FieldChecks.text(svc.path("port").get("name")).isEmpty();
            boolean portNumber = svc.path("port").path("number").asLong(0) != 0;
            if (portName && portNumber) {
                errors.add(invalid(path, "", "cannot set both port name & port number"));
            } else if (portNumber) {
                long n = svc.path("port").path("number").asLong();
                if (n < 1 || n > 65535) {
                    errors.add(invalid(path + ".service.port.number", n, "must be between 1 and 65535, inclusive"));
                }
            } else if (!portName) {
                errors.add(required(path + ".service.port", "port name or number is required"));
            }
        } else if (!resource) {
            errors.add(invalid(path, "", "resource or service backend is required"));
        }
    }

    private static boolean subdomain(String s) {
        return s.length() <= 253 && s.matches(DNS1123_SUBDOMAIN);
    }
}
