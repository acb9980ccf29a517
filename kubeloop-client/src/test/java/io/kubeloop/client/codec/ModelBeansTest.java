package io.kubeloop.client.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link ModelBeans} reads fabric8's model classes without Jackson's introspection, and decodes exactly what
 * Jackson's own bean deserializers decode: for every model class on the class path, objects with every property
 * (and properties the class does not declare, and nulls) decode to equal objects that write the same JSON; odd
 * input fails with Jackson's error and path.
 */
class ModelBeansTest {

    /** Jackson as it comes. */
    private static final JsonMapper JACKSON = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private static final Decoding[] DECODINGS = {Decoding.standard(), Decoding.compact()};

    @Test
    void takesTheGeneratedModelClasses() {
        for (Class<?> type :
                List.of(Pod.class, PodSpec.class, PodStatus.class, Container.class, ObjectMeta.class, ListMeta.class)) {
            assertThat(ModelBeans.analyze(type)).as(type.getSimpleName()).isPresent();
        }
        assertThat(ModelBeans.analyze(Quantity.class))
                .as("a class with its own deserializer")
                .isEmpty();
        List<Class<?>> models = modelClasses().filter(ModelBeans::isModel).toList();
        long taken =
                models.stream().filter(c -> ModelBeans.analyze(c).isPresent()).count();
        assertThat(models).hasSizeGreaterThan(250);
        assertThat(taken).as("model classes taken of %d", models.size()).isGreaterThan(models.size() * 9 / 10);
    }

    @Test
    void everyModelClassTakenDecodesAsJacksonAlone() {
        List<String> different = new ArrayList<>();
        ModelJson[] shapes = {new ModelJson(false, true, 3), new ModelJson(true, true, 3)};
        List<Class<?>> taken =
                modelClasses().filter(c -> ModelBeans.analyze(c).isPresent()).toList();
        for (Class<?> type : taken) {
            for (ModelJson shape : shapes) {
                byte[] json = shape.of(type).toString().getBytes(StandardCharsets.UTF_8);
                Object expected = JACKSON.readValue(json, type);
                String expectedJson = JACKSON.writeValueAsString(expected);
                for (Decoding decoding : DECODINGS) {
                    Object decoded = decoding.mapper().readValue(new ByteArrayInputStream(json), type);
                    if (!decoded.equals(expected)
                            || !JACKSON.writeValueAsString(decoded).equals(expectedJson)) {
                        different.add(type.getName() + " (" + decoding + ")");
                    }
                }
            }
        }
        assertThat(taken).hasSizeGreaterThan(250);
        assertThat(different).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{}",
                "{\"spec\":null,\"status\":null,\"metadata\":null}",
                "{\"spec\":{}}",
                "{\"spec\":{\"containers\":null,\"nodeSelector\":null}}",
                "{\"spec\":{\"containers\":[]}}",
                "{\"metadata\":{\"name\":\"a\",\"name\":\"b\",\"labels\":{\"k\":\"v\",\"k\":\"w\"}}}",
                "{\"spec\":{\"priority\":\"7\",\"hostNetwork\":\"true\"}}",
                "{\"spec\":{\"containers\":{\"name\":\"one\"}}}",
                "{\"kind\":\"Pod\",\"x\":{\"y\":[1,2.5,null,true]},\"metadata\":{\"z\":7}}",
                "{\"metadata\":{\"annotations\":{\"a\":\"<b>&amp;\\u003c\"}}}",
            })
    void edgeCasesDecodeAsJacksonAlone(String json) {
        Object expected = outcome(() -> JACKSON.readValue(json, Pod.class));
        for (Decoding decoding : DECODINGS) {
            assertThat(outcome(() -> decoding.mapper().readValue(json.getBytes(StandardCharsets.UTF_8), Pod.class)))
                    .as("%s, %s", json, decoding)
                    .isEqualTo(expected);
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"spec\":\"x\"}",
                "{\"spec\":[]}",
                "{\"spec\":7}",
                "{\"spec\":{\"priority\":\"high\"}}",
                "{\"spec\":{\"containers\":\"x\"}}",
                "{\"spec\":{\"containers\":[{\"ports\":[{\"containerPort\":{}}]}]}}",
                "{\"metadata\":{\"labels\":[1]}}",
                "{\"metadata\":{\"creationTimestamp\":{\"a\":1}}}",
                "{\"spec\":{\"containers\":[{\"name\":\"a\",}]}}",
                "{\"spec\":{\"containers\":[{\"name\":\"a\"",
            })
    void badInputFailsAsJacksonFails(String json) {
        JacksonException expected =
                catchThrowableOfType(JacksonException.class, () -> JACKSON.readValue(json, Pod.class));
        assertThat(expected).as(json).isNotNull();
        for (Decoding decoding : DECODINGS) {
            JacksonException e = catchThrowableOfType(JacksonException.class, () -> decoding.mapper()
                    .readValue(json.getBytes(StandardCharsets.UTF_8), Pod.class));
            assertThat(e).as("%s, %s", json, decoding).isNotNull();
            assertThat(e.getClass()).as("%s, %s", json, decoding).isEqualTo(expected.getClass());
            assertThat(e.getOriginalMessage()).as("%s, %s", json, decoding).isEqualTo(expected.getOriginalMessage());
            assertThat(e.getPathReference()).as("%s, %s", json, decoding).isEqualTo(expected.getPathReference());
        }
    }

    @Test
    void updatingAnObjectMergesAsJacksonDoes() {
        String json = "{\"metadata\":{\"labels\":{\"b\":\"2\"}},\"spec\":{\"nodeName\":\"n2\"}}";
        String base = "{\"metadata\":{\"name\":\"p\",\"labels\":{\"a\":\"1\"}},\"spec\":{\"nodeName\":\"n1\","
                + "\"containers\":[{\"name\":\"c\"}]}}";
        Pod expected =
                JACKSON.readerForUpdating(JACKSON.readValue(base, Pod.class)).readValue(json);
        Pod updated = Decoding.standard()
                .mapper()
                .readerForUpdating(Decoding.standard().mapper().readValue(base, Pod.class))
                .readValue(json);
        assertThat(updated).isEqualTo(expected);
    }

    @Test
    void skippingManagedFieldsDecodesAsJacksonWithTheSameMixIn() {
        JsonMapper skipping = JsonMapper.builder()
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .addMixIn(ObjectMeta.class, SkipManagedFields.class)
                .build();
        for (Class<?> root : List.of(Pod.class, ObjectMeta.class, io.fabric8.kubernetes.api.model.PodList.class)) {
            byte[] json = new ModelJson(false, true, 4).of(root).toString().getBytes(StandardCharsets.UTF_8);
            assertThat(new String(json, StandardCharsets.UTF_8)).contains("\"managedFields\"");
            Object expected = outcome(() -> skipping.readValue(json, root));
            for (Decoding decoding : DECODINGS) {
                assertThat(outcome(
                                () -> decoding.withoutManagedFields().mapper().readValue(json, root)))
                        .as("%s, %s", root.getSimpleName(), decoding)
                        .isEqualTo(expected);
            }
        }
    }

    /** What {@code Decoding.withoutManagedFields()} mixes into ObjectMeta. */
    @com.fasterxml.jackson.annotation.JsonIgnoreProperties(
            value = {"managedFields"},
            ignoreUnknown = true)
    private abstract static class SkipManagedFields {}

    @Test
    void readingWithAViewDecodesAsJacksonDoes() {
        String json = "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"nodeName\":\"n\"},\"x\":1}";
        Object expected = outcome(
                () -> JACKSON.readerWithView(String.class).forType(Pod.class).readValue(json));
        for (Decoding decoding : DECODINGS) {
            assertThat(outcome(() -> decoding.mapper()
                            .readerWithView(String.class)
                            .forType(Pod.class)
                            .readValue(json.getBytes(StandardCharsets.UTF_8))))
                    .as("%s", decoding)
                    .isEqualTo(expected);
        }
    }

    /** The decoded object's JSON, or the failure's class and message. */
    private static Object outcome(java.util.concurrent.Callable<Object> decode) {
        try {
            return JACKSON.writeValueAsString(decode.call());
        } catch (Exception e) {
            return e.getClass().getName() + ": " + (e instanceof JacksonException j ? j.getOriginalMessage() : e);
        }
    }

    /** Every top-level class of the fabric8 model packages on the class path. */
    static Stream<Class<?>> modelClasses() {
        TreeSet<String> names = new TreeSet<>();
        try {
            for (URL url : Collections.list(
                    ModelBeansTest.class.getClassLoader().getResources("io/fabric8/kubernetes/api/model"))) {
                if (url.getProtocol().equals("jar")) {
                    try (JarFile jar = ((JarURLConnection) url.openConnection()).getJarFile()) {
                        jar.stream().map(e -> e.getName()).forEach(n -> addClass(names, n));
                    }
                } else {
                    Path root = Path.of(url.toURI())
                            .getParent()
                            .getParent()
                            .getParent()
                            .getParent()
                            .getParent();
                    try (Stream<Path> files = Files.walk(Path.of(url.toURI()))) {
                        files.forEach(f -> addClass(names, root.relativize(f).toString()));
                    }
                }
            }
        } catch (IOException | URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        return names.stream().map(ModelBeansTest::load);
    }

    private static void addClass(TreeSet<String> names, String entry) {
        if (entry.startsWith("io/fabric8/kubernetes/api/model/") && entry.endsWith(".class") && !entry.contains("$")) {
            names.add(entry.substring(0, entry.length() - ".class".length()).replace('/', '.'));
        }
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name, false, ModelBeansTest.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }
}
