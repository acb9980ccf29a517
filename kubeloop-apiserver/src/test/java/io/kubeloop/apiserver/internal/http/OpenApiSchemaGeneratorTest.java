package io.kubeloop.apiserver.internal.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The checked-in built-in schemas are exactly what {@link OpenApiSchemaGenerator} writes, so they cannot drift
 * from the generator or from the list of built-in kinds. To regenerate them (after adding a kind, or changing the
 * generator), run from the repository root:
 *
 * <pre>
 * mvn -o -q -pl kubeloop-apiserver -am test -Dtest=OpenApiSchemaGeneratorTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dkubeloop.openapi.regenerate=true
 * </pre>
 */
class OpenApiSchemaGeneratorTest {

    private static final Path CHECKED_IN =
            Path.of("src/main/resources/io/kubeloop/apiserver/internal/http", OpenApiSchemas.RESOURCE);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** Generated once for the class: the generator reflects over a few hundred model classes. */
    private static final Map<String, Object> GENERATED = OpenApiSchemaGenerator.generate();

    @Test
    void checkedInSchemasAreWhatTheGeneratorWrites() throws IOException {
        byte[] generated = JSON.writeValueAsBytes(GENERATED);
        if (Boolean.getBoolean("kubeloop.openapi.regenerate")) {
            ByteArrayOutputStream gz = new ByteArrayOutputStream();
            try (OutputStream out = new GZIPOutputStream(gz)) {
                out.write(generated);
            }
            Files.write(CHECKED_IN, gz.toByteArray());
        }
        byte[] checkedIn;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(CHECKED_IN))) {
            checkedIn = in.readAllBytes();
        }
        // compared as text, not gzip bytes (deflate output may differ between JDKs)
        assertThat(new String(checkedIn, java.nio.charset.StandardCharsets.UTF_8))
                .as("%s is stale: regenerate it (see this test's Javadoc)", CHECKED_IN)
                .isEqualTo(new String(generated, java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void everyKindHasItsSchemaWithDescriptionsAndTypes() throws IOException {
        JsonNode schemas = JSON.valueToTree(GENERATED).get("components").get("schemas");
        for (var gvk : OpenApiSchemaGenerator.kinds()) {
            String name = OpenApiSchemaGenerator.goPackage(gvk.group()) + "." + gvk.version() + "." + gvk.kind();
            assertThat(schemas.has(name)).as(name).isTrue();
            assertThat(schemas.get(name)
                            .get("x-kubernetes-group-version-kind")
                            .get(0)
                            .get("kind")
                            .asString())
                    .isEqualTo(gvk.kind());
        }
        JsonNode replicas = schemas.get("io.k8s.api.apps.v1.DeploymentSpec")
                .get("properties")
                .get("replicas");
        assertThat(replicas.get("type").asString()).isEqualTo("integer");
        assertThat(replicas.get("format").asString()).isEqualTo("int32");
        assertThat(replicas.get("description").asString()).startsWith("Number of desired pods.");
        JsonNode containers =
                schemas.get("io.k8s.api.core.v1.PodSpec").get("properties").get("containers");
        assertThat(containers.get("items").get("allOf").get(0).get("$ref").asString())
                .isEqualTo("#/components/schemas/io.k8s.api.core.v1.Container");
        assertThat(schemas.get("io.k8s.api.core.v1.PodSpec").get("required").toString())
                .isEqualTo("[\"containers\"]");
        assertThat(schemas.get("io.k8s.api.core.v1.ContainerPort")
                        .get("properties")
                        .get("containerPort")
                        .get("default")
                        .asInt())
                .as("a required Go value field defaults to its zero")
                .isZero();
        JsonNode targetPort =
                schemas.get("io.k8s.api.core.v1.ServicePort").get("properties").get("targetPort");
        assertThat(targetPort.get("allOf").get(0).get("$ref").asString())
                .endsWith("io.k8s.apimachinery.pkg.util.intstr.IntOrString");
        assertThat(schemas.get("io.k8s.api.coordination.v1.LeaseSpec")
                        .at("/properties/renewTime/allOf/0/$ref")
                        .asString())
                .endsWith("meta.v1.MicroTime");
        assertThat(schemas.get("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
                        .at("/properties/creationTimestamp/allOf/0/$ref")
                        .asString())
                .endsWith("meta.v1.Time");
    }

    /**
     * The component names the generator derives from client-java's class names agree with the Go packages of
     * client-java-proto's messages: no component sits in a package where kube has no such type while another
     * package has one (client-java-proto is older than 1.32 and lacks some groups: those are not checked).
     */
    @Test
    void componentNamesAgreeWithTheProtobufPackages() throws Exception {
        Map<String, Set<String>> packagesBySimpleName = new HashMap<>();
        Set<String> protoPackages = new HashSet<>();
        for (Descriptors.FileDescriptor file : protoFiles()) {
            String pkg = "io."
                    + file.getPackage().replaceFirst("^k8s\\.io\\.", "k8s.").replace('_', '-');
            protoPackages.add(pkg);
            for (Descriptors.Descriptor m : file.getMessageTypes()) {
                packagesBySimpleName
                        .computeIfAbsent(m.getName(), k -> new HashSet<>())
                        .add(pkg);
            }
        }
        JsonNode schemas = JSON.valueToTree(GENERATED).get("components").get("schemas");
        List<String> wrong = new ArrayList<>();
        int checked = 0;
        for (Map.Entry<String, JsonNode> e : schemas.properties()) {
            String name = e.getKey();
            String simple = name.substring(name.lastIndexOf('.') + 1);
            String pkg = name.substring(0, name.lastIndexOf('.'));
            Set<String> known = packagesBySimpleName.get(simple);
            if (!protoPackages.contains(pkg) || known == null || known.contains(pkg)) {
                checked += known == null ? 0 : 1;
                continue;
            }
            wrong.add(name + " (protobuf has " + known + ")");
        }
        assertThat(wrong).isEmpty();
        assertThat(checked)
                .as("component names confirmed by a protobuf message")
                .isGreaterThan(250);
    }

    private static List<Descriptors.FileDescriptor> protoFiles() throws Exception {
        List<Descriptors.FileDescriptor> files = new ArrayList<>();
        for (String outer : List.of(
                "V1",
                "V1Apps",
                "V1Batch",
                "V1Networking",
                "V1Policy",
                "V1Rbac",
                "V1Storage",
                "V1Autoscaling",
                "V1Authorization",
                "V1Authentication",
                "Meta")) {
            Class<?> c = Class.forName("io.kubernetes.client.proto." + outer);
            files.add((Descriptors.FileDescriptor) c.getMethod("getDescriptor").invoke(null));
        }
        return files;
    }
}
