package io.kubeloop.apiserver.internal.http;

import io.kubeloop.model.GroupVersionKind;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The OpenAPI v3 component schemas of the built-in kinds, as Kubernetes 1.32 describes them: {@code
 * io.k8s.api.core.v1.Pod}, {@code io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta} and every component they
 * reference. They are generated, not written by hand: {@code OpenApiSchemaGenerator} (test code, reading the
 * client-java-api models) writes {@link #RESOURCE}, and {@code OpenApiSchemaGeneratorTest} fails when the checked-in
 * file differs from what it would write (kubeloop-apiserver/README.md, "OpenAPI", has the command that regenerates
 * it).
 *
 * <p>Loaded once per JVM, on first use ({@link #builtIn()}), which is the first OpenAPI request of any server: the
 * server's start does not pay for it. Invariant: the schemas are never modified after loading, so documents share
 * their nodes.
 */
final class OpenApiSchemas {

    /** The generated schemas ({@code {"components":{"schemas":{...}}}}, gzip), beside this class. */
    static final String RESOURCE = "openapi-v3-schemas.json.gz";

    private static final String REF_PREFIX = "#/components/schemas/";

    private final JsonNode schemas;
    private final Map<GroupVersionKind, String> byKind = new HashMap<>();

    private OpenApiSchemas(JsonNode schemas) {
        this.schemas = schemas;
        for (Map.Entry<String, JsonNode> e : schemas.properties()) {
            for (JsonNode gvk : e.getValue().path("x-kubernetes-group-version-kind")) {
                byKind.put(
                        new GroupVersionKind(
                                gvk.get("group").asString(),
                                gvk.get("version").asString(),
                                gvk.get("kind").asString()),
                        e.getKey());
            }
        }
    }

    /** The schemas of the built-in kinds, read from {@link #RESOURCE} on the first call. */
    static OpenApiSchemas builtIn() {
        return Holder.BUILT_IN;
    }

    private static final class Holder {
        static final OpenApiSchemas BUILT_IN = load();
    }

    private static OpenApiSchemas load() {
        try (InputStream in = OpenApiSchemas.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from kubeloop-apiserver's jar");
            }
            JsonNode doc = JsonMapper.builder().build().readTree(new GZIPInputStream(in));
            return new OpenApiSchemas(doc.get("components").get("schemas"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }

    /** The component name of a kind ({@code io.k8s.api.apps.v1.Deployment}), or null when it has none. */
    String componentOf(GroupVersionKind gvk) {
        return byKind.get(gvk);
    }

    /**
     * Puts into {@code into} the component {@code name} and every component it references, directly or not, as
     * kube's documents hold every component their schemas reference.
     */
    void addWithReferences(String name, ObjectNode into) {
        Deque<String> work = new ArrayDeque<>();
        work.add(name);
        while (!work.isEmpty()) {
            String next = work.poll();
            if (into.has(next)) {
                continue;
            }
            JsonNode schema = schemas.get(next);
            if (schema == null) {
                throw new IllegalStateException("no built-in OpenAPI schema " + next);
            }
            into.set(next, schema);
            collectRefs(schema, work);
        }
    }

    private static void collectRefs(JsonNode node, Deque<String> into) {
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                // a string $ref is a reference; JSONSchemaProps also has a property named $ref
                if (e.getKey().equals("$ref") && e.getValue().isString()) {
                    into.add(e.getValue().asString().substring(REF_PREFIX.length()));
                } else {
                    collectRefs(e.getValue(), into);
                }
            }
        } else if (node.isArray()) {
            for (JsonNode n : node) {
                collectRefs(n, into);
            }
        }
    }
}
