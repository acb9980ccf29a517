package io.kubeloop.client.codec;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.Quantity;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** Test JSON for fabric8 model classes, made from their {@code @JsonProperty} fields. */
final class ModelJson {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final boolean nulls;
    private final boolean unknowns;
    private final int maxDepth;

    /**
     * With {@code nulls}, every model-typed property below the root is null; with {@code unknowns}, every object also
     * has two properties its class does not declare (one an object, one null); nesting stops at {@code maxDepth}.
     */
    ModelJson(boolean nulls, boolean unknowns, int maxDepth) {
        this.nulls = nulls;
        this.unknowns = unknowns;
        this.maxDepth = maxDepth;
    }

    /** An object of {@code type}. */
    ObjectNode of(Class<?> type) {
        return filled(type, new ArrayDeque<>());
    }

    /**
     * A JSON object with every {@code @JsonProperty} of the class given a value of its type; nesting stops at a class
     * already on the path.
     */
    private ObjectNode filled(Class<?> type, Deque<Class<?>> path) {
        ObjectNode object = NODES.objectNode();
        path.push(type);
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                JsonProperty name = field.getAnnotation(JsonProperty.class);
                if (name == null || Modifier.isStatic(field.getModifiers())) {
                    continue;
                }
                JsonNode value = nulls && path.size() > 1 ? NODES.nullNode() : value(field.getGenericType(), path);
                if (value != null) {
                    object.set(name.value(), value);
                }
            }
        }
        if (unknowns) {
            object.set(
                    "zzUnknown",
                    NODES.objectNode()
                            .set("a", NODES.arrayNode().add(1).add("x").addNull()));
            object.putNull("zzUnknownNull");
        }
        path.pop();
        return object;
    }

    private JsonNode value(Type type, Deque<Class<?>> path) {
        if (type instanceof ParameterizedType p) {
            Class<?> raw = (Class<?>) p.getRawType();
            Type[] args = p.getActualTypeArguments();
            if (Collection.class.isAssignableFrom(raw)) {
                JsonNode element = value(args[0], path);
                return element == null ? null : NODES.arrayNode().add(element);
            }
            if (Map.class.isAssignableFrom(raw)) {
                JsonNode element = value(args[1], path);
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
        if (c.getName().startsWith("io.fabric8.kubernetes.api.model.")
                && !c.isInterface()
                && !c.isEnum()
                && !Modifier.isAbstract(c.getModifiers())
                && !path.contains(c)
                && path.size() < maxDepth) {
            return filled(c, path);
        }
        return null;
    }
}
