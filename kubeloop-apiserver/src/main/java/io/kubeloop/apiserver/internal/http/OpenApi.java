package io.kubeloop.apiserver.internal.http;

import io.kubeloop.apiserver.internal.crd.CustomResources;
import io.kubeloop.model.GroupVersionKind;
import io.kubeloop.model.ResourceRegistry;
import io.kubeloop.model.ResourceType;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * OpenAPI v3 documents generated from the resource registry: {@code /openapi/v3} lists one document per
 * group-version at a URL carrying a hash of its content (so clients may cache it forever), and each
 * document has, per kind, the PATCH operation that kubectl looks for before {@code apply}, {@code create},
 * {@code replace} and {@code edit}: tagged {@code x-kubernetes-group-version-kind} and accepting the
 * {@code fieldValidation} parameter. The operations do not list strategic merge patch, so kubectl computes
 * such patches from its compiled-in types, as the protocol reference recommends (and, for custom resources,
 * falls back to a JSON merge patch).
 *
 * <p>Component schemas: a built-in kind has Kubernetes 1.32's schema ({@link OpenApiSchemas}) with every component
 * it references, as kube's documents do, so {@code kubectl explain} works; a custom resource has its CRD's
 * schema. A document exists only for a group-version the registry serves.
 */
final class OpenApi {

    /** The body of the scale subresource, in the documents of kinds that have one (as in kube's). */
    private static final String SCALE = "io.k8s.api.autoscaling.v1.Scale";

    private static final String OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

    /** The documents by path below {@code /openapi/v3/} ({@code api/v1}, {@code apis/apps/v1}). */
    private final Map<String, byte[]> documents = new LinkedHashMap<>();

    private final Map<String, String> hashes = new LinkedHashMap<>();
    private final byte[] index;

    OpenApi(JsonMapper json, ResourceRegistry registry) {
        this(json, registry, null);
    }

    /**
     * Documents whose custom resources have component schemas: {@code crds} gives a custom resource version's
     * schema (null for built-ins, which have theirs from {@link OpenApiSchemas}); a null {@code crds} serves no
     * custom resource schemas.
     */
    OpenApi(JsonMapper json, ResourceRegistry registry, CustomResources crds) {
        OpenApiSchemas builtIn = OpenApiSchemas.builtIn();
        Map<String, ObjectNode> docs = new LinkedHashMap<>();
        for (ResourceType t : registry.types()) {
            String gv = t.group().isEmpty() ? "api/" + t.version() : "apis/" + t.group() + "/" + t.version();
            ObjectNode doc = docs.computeIfAbsent(gv, k -> {
                ObjectNode d = json.createObjectNode();
                d.put("openapi", "3.0.0");
                ObjectNode info = d.putObject("info");
                info.put("title", "Kubernetes");
                info.put("version", KubernetesVersion.SERVED.gitVersion());
                d.putObject("paths");
                d.putObject("components").putObject("schemas");
                return d;
            });
            String prefix = "/" + gv + (t.namespaced() ? "/namespaces/{namespace}/" : "/") + t.plural() + "/{name}";
            ObjectNode patch = ((ObjectNode) doc.get("paths")).putObject(prefix).putObject("patch");
            patch.put("operationId", "patch" + t.kind());
            ObjectNode gvk = patch.putObject("x-kubernetes-group-version-kind");
            gvk.put("group", t.group());
            gvk.put("version", t.version());
            gvk.put("kind", t.kind());
            patch.put("x-kubernetes-action", "patch");
            var parameters = patch.putArray("parameters");
            for (String name : new String[] {"dryRun", "fieldManager", "fieldValidation", "force"}) {
                ObjectNode p = parameters.addObject();
                p.put("name", name);
                p.put("in", "query");
                p.put("uniqueItems", true);
                p.putObject("schema").put("type", name.equals("force") ? "boolean" : "string");
            }
            ObjectNode content = patch.putObject("requestBody").putObject("content");
            for (String mt : new String[] {
                "application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json"
            }) {
                content.putObject(mt).putObject("schema").put("type", "object");
            }
            ObjectNode ok = patch.putObject("responses").putObject("200");
            ok.put("description", "OK");
            ObjectNode schemas = (ObjectNode) doc.get("components").get("schemas");
            String name = null;
            ObjectNode schema = crds == null ? null : crds.openApiSchema(t);
            if (schema != null) {
                name = CustomResources.openApiName(t);
                // kube's documents of custom resources reference ObjectMeta too, so explain shows its fields
                if (schema.path("properties").get("metadata") instanceof ObjectNode metadata) {
                    metadata.remove("type");
                    metadata.putArray("allOf").addObject().put("$ref", "#/components/schemas/" + OBJECT_META);
                    builtIn.addWithReferences(OBJECT_META, schemas);
                }
                schemas.set(name, schema);
            } else {
                name = builtIn.componentOf(new GroupVersionKind(t.group(), t.version(), t.kind()));
                if (name != null) {
                    builtIn.addWithReferences(name, schemas);
                    if (t.hasScale()) {
                        builtIn.addWithReferences(SCALE, schemas);
                    }
                }
            }
            if (name != null) {
                ok.putObject("content")
                        .putObject("application/json")
                        .putObject("schema")
                        .put("$ref", "#/components/schemas/" + name);
            }
        }
        ObjectNode indexDoc = json.createObjectNode();
        ObjectNode paths = indexDoc.putObject("paths");
        docs.forEach((gv, doc) -> {
            byte[] bytes = json.writeValueAsBytes(doc);
            String hash = sha512Hex(bytes);
            documents.put(gv, bytes);
            hashes.put(gv, hash);
            paths.putObject(gv).put("serverRelativeURL", "/openapi/v3/" + gv + "?hash=" + hash);
        });
        this.index = json.writeValueAsBytes(indexDoc);
    }

    byte[] index() {
        return index;
    }

    /** The document at {@code path} below {@code /openapi/v3/}, or null. */
    byte[] document(String path) {
        return documents.get(path);
    }

    String hash(String path) {
        return hashes.get(path);
    }

    private static String sha512Hex(byte[] bytes) {
        try {
            return HexFormat.of()
                    .withUpperCase()
                    .formatHex(MessageDigest.getInstance("SHA-512").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-512 is part of every Java runtime", e);
        }
    }
}
