package io.kubeloop.client.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.Service;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@link DeferredBeans} changes when deserializers are built, never what is decoded: objects with every property of
 * every reachable model class filled in (and, separately, every property null) decode exactly as with Jackson's
 * eager resolution, in every decoding.
 */
class DeferredBeansTest {

    /** Jackson as it comes: every deserializer of the graph built up front. */
    private static final JsonMapper EAGER = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final int MAX_DEPTH = 12;

    static Stream<Class<?>> roots() {
        return Stream.of(Pod.class, PodList.class, ReplicationController.class, Service.class, Endpoints.class,
                Node.class, PersistentVolume.class, PersistentVolumeClaim.class, ResourceQuota.class, Event.class);
    }

    @ParameterizedTest
    @MethodSource("roots")
    void everyPropertyFilledInDecodesAsJacksonAlone(Class<?> root) {
        JsonNode json = filled(root, new ArrayDeque<>(), false);
        assertThat(json.size()).isGreaterThan(2);
        assertSameDecoding(root, json.toString());
    }

    @ParameterizedTest
    @MethodSource("roots")
    void everyNestedPropertyNullDecodesAsJacksonAlone(Class<?> root) {
        assertSameDecoding(root, filled(root, new ArrayDeque<>(), true).toString());
    }

    private static void assertSameDecoding(Class<?> root, String json) {
        Object eager = EAGER.readValue(json, root);
        String expected = EAGER.writeValueAsString(eager);
        for (Decoding decoding : new Decoding[] {Decoding.standard(), Decoding.compact()}) {
            Object decoded = decoding.mapper().readValue(json, root);
            assertThat(EAGER.writeValueAsString(decoded)).as("%s, %s", root.getSimpleName(), decoding)
                    .isEqualTo(expected);
            assertThat(decoded).as("%s, %s", root.getSimpleName(), decoding).isEqualTo(eager);
        }
    }

    /**
     * A JSON object with every {@code @JsonProperty} of the class given a value of its type; with {@code nulls},
     * every model-typed property below the root is null instead. Recursion stops at a class already on the path.
     */
    private static ObjectNode filled(Class<?> type, Deque<Class<?>> path, boolean nulls) {
        ObjectNode object = NODES.objectNode();
        path.push(type);
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                JsonProperty name = field.getAnnotation(JsonProperty.class);
                if (name == null || Modifier.isStatic(field.getModifiers())) {
                    continue;
                }
                JsonNode value = nulls && path.size() > 1 ? NODES.nullNode()
                        : value(field.getGenericType(), path, nulls);
                if (value != null) {
                    object.set(name.value(), value);
                }
            }
        }
        path.pop();
        return object;
    }

    private static JsonNode value(Type type, Deque<Class<?>> path, boolean nulls) {
        if (type instanceof ParameterizedType p) {
            Class<?> raw = (Class<?>) p.getRawType();
            Type[] args = p.getActualTypeArguments();
            if (Collection.class.isAssignableFrom(raw)) {
                JsonNode element = value(args[0], path, nulls);
                return element == null ? null : NODES.arrayNode().add(element);
            }
            if (Map.class.isAssignableFrom(raw)) {
                JsonNode element = value(args[1], path, nulls);
                return element == null ? null : NODES.objectNode().set("k", element);
            }
            return null;
        }
        if (!(type instanceof Class<?> c)) {
            return null;
        }
        if (c == String.class) {
            return NODES.stringNode("s");
        }
        if (c == Integer.class || c == int.class || c == Long.class || c == long.class) {
            return NODES.numberNode(7);
        }
        if (c == Boolean.class || c == boolean.class) {
            return NODES.booleanNode(true);
        }
        if (c == Double.class || c == double.class || c == Float.class || c == float.class) {
            return NODES.numberNode(1.5);
        }
        if (c == Quantity.class) {
            return NODES.stringNode("1500m");
        }
        if (c == IntOrString.class) {
            return NODES.numberNode(8080);
        }
        if (c == MicroTime.class) {
            return NODES.stringNode("2026-11-30T10:00:00.123456Z");
        }
        if (c == Object.class) {
            return NODES.objectNode().set("any", NODES.arrayNode().add(1).add("x"));
        }
        if (c.getName().startsWith("io.fabric8.kubernetes.api.model.") && !c.isInterface() && !c.isEnum()
                && !Modifier.isAbstract(c.getModifiers()) && !path.contains(c) && path.size() < MAX_DEPTH) {
            return filled(c, path, nulls);
        }
        return null;
    }
}
