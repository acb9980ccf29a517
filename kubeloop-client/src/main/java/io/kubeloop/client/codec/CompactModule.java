package io.kubeloop.client.codec;

import io.fabric8.kubernetes.api.model.FieldsV1;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.BeanProperty;
import tools.jackson.databind.DeserializationConfig;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.KeyDeserializer;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.deser.ValueDeserializerModifier;
import tools.jackson.databind.deser.jdk.StringDeserializer;
import tools.jackson.databind.deser.std.DelegatingDeserializer;
import tools.jackson.databind.module.SimpleModule;

/**
 * The Jackson module behind {@link Decoding#compact()}: objects decoded for a cache that nobody mutates, built to
 * take less heap and to serialize to exactly the same JSON.
 *
 * <ul>
 *   <li>every String value and map key goes through one {@link InternTable}, so a namespace, label, image or
 *       timestamp that recurs across objects is stored once;</li>
 *   <li>a fabric8 model object's empty {@code additionalProperties} (a {@code LinkedHashMap} in every object) is
 *       replaced by one shared immutable empty map; empty maps and lists by {@code Map.of()}/{@code List.of()};
 *       lists by immutable copies of their exact size;</li>
 *   <li>instances of {@link #SHARED} value classes (containers, volumes, tolerations, ...) are shared between
 *       objects when they are written exactly alike, by their JSON text ({@link TextParts}), so that a part seen
 *       before is not even decoded: pods of one template carry the same ones;</li>
 *   <li>managedFields' {@code FieldsV1} trees are kept as their JSON text and shared when equal
 *       ({@link CompactFieldsV1}).</li>
 * </ul>
 *
 * <p>Invariant: every shared part is frozen ({@link FrozenParts}), so a mutation through one object never reaches
 * another object or a later decode; a class that cannot be frozen is not shared. Model classes without
 * {@code get/setAdditionalProperties} are left as they are.
 */
final class CompactModule {

    /**
     * Model classes whose equal instances are shared, frozen ({@link FrozenParts}), children first: they are decoded
     * bottom-up. {@code Quantity} is not among them: it cannot be frozen (see {@link FrozenParts#readable}), so it is
     * shared only inside the frozen parts that hold it.
     */
    static final Set<String> SHARED = Set.of(
            "io.fabric8.kubernetes.api.model.Container",
            "io.fabric8.kubernetes.api.model.ContainerPort",
            "io.fabric8.kubernetes.api.model.EnvVar",
            "io.fabric8.kubernetes.api.model.EnvVarSource",
            "io.fabric8.kubernetes.api.model.ObjectFieldSelector",
            "io.fabric8.kubernetes.api.model.ResourceRequirements",
            "io.fabric8.kubernetes.api.model.Probe",
            "io.fabric8.kubernetes.api.model.HTTPGetAction",
            "io.fabric8.kubernetes.api.model.IntOrString",
            "io.fabric8.kubernetes.api.model.VolumeMount",
            "io.fabric8.kubernetes.api.model.Volume",
            "io.fabric8.kubernetes.api.model.ConfigMapVolumeSource",
            "io.fabric8.kubernetes.api.model.ProjectedVolumeSource",
            "io.fabric8.kubernetes.api.model.VolumeProjection",
            "io.fabric8.kubernetes.api.model.ServiceAccountTokenProjection",
            "io.fabric8.kubernetes.api.model.Toleration",
            "io.fabric8.kubernetes.api.model.PodCondition",
            "io.fabric8.kubernetes.api.model.OwnerReference",
            "io.fabric8.kubernetes.api.model.ContainerState",
            "io.fabric8.kubernetes.api.model.ContainerStateRunning",
            "io.fabric8.kubernetes.api.model.SecurityContext",
            "io.fabric8.kubernetes.api.model.PodSecurityContext",
            "io.fabric8.kubernetes.api.model.Affinity",
            "io.fabric8.kubernetes.api.model.KeyToPath");

    private static final Map<String, Object> EMPTY = Collections.emptyMap();
    private static final List<Object> EMPTY_LIST = List.of();

    private CompactModule() {}

    static SimpleModule create(InternTable<String> strings, TextParts values, TextParts trees) {
        SimpleModule module = new SimpleModule("kubeloop-compact");
        module.addDeserializer(FieldsV1.class, new CompactFieldsV1(trees));
        module.addDeserializer(String.class, new InterningStrings(strings));
        module.addKeyDeserializer(String.class, new KeyDeserializer() {
            @Override
            public Object deserializeKey(String key, DeserializationContext ctxt) {
                return strings.intern(key);
            }
        });
        module.setDeserializerModifier(new ValueDeserializerModifier() {
            @Override
            public ValueDeserializer<?> modifyDeserializer(
                    DeserializationConfig config, BeanDescription.Supplier bean, ValueDeserializer<?> deserializer) {
                if (deserializer instanceof DeferredBeans.Deferred) {
                    return deserializer; // the real one is wrapped when it is built
                }
                Class<?> type = bean.getBeanClass();
                MethodHandle[] handles = type == FieldsV1.class ? null : additionalProperties(type);
                if (handles == null) {
                    return deserializer;
                }
                // A part is shared only as a frozen copy; a class that cannot be frozen is not shared.
                boolean shared = SHARED.contains(type.getName()) && FrozenParts.canFreeze(type);
                return new CompactBean(
                        type, deserializer, handles[0], handles[1], listProperties(type), shared ? values : null);
            }
        });
        return module;
    }

    /** {getAdditionalProperties, setAdditionalProperties} of a fabric8 model class, or null. */
    private static MethodHandle[] additionalProperties(Class<?> type) {
        if (!type.getName().startsWith("io.fabric8.")) {
            return null;
        }
        try {
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            MethodHandle get = lookup.findVirtual(type, "getAdditionalProperties", MethodType.methodType(Map.class))
                    .asType(MethodType.methodType(Map.class, Object.class));
            MethodHandle set = lookup.findVirtual(
                            type, "setAdditionalProperties", MethodType.methodType(void.class, Map.class))
                    .asType(MethodType.methodType(void.class, Object.class, Map.class));
            return new MethodHandle[] {get, set};
        } catch (NoSuchMethodException | IllegalAccessException e) {
            return null;
        }
    }

    /**
     * {get, set} pairs of the class's List and Map properties (besides additionalProperties): fabric8 initializes
     * each List to an empty ArrayList, which stays when the JSON lacks the property. Found from the declared
     * fields and their accessors' names ({@link ModelBeans#accessorSuffix}), never from
     * {@code getMethods()}: listing a model class's methods loads its builder and fluent classes.
     */
    private static MethodHandle[][] listProperties(Class<?> type) {
        List<MethodHandle[]> pairs = new java.util.ArrayList<>();
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        for (java.lang.reflect.Field f : type.getDeclaredFields()) {
            Class<?> kind = f.getType();
            if (java.lang.reflect.Modifier.isStatic(f.getModifiers())
                    || kind != List.class && kind != Map.class
                    || f.getName().equals("additionalProperties")) {
                continue;
            }
            String property = ModelBeans.accessorSuffix(f);
            try {
                MethodHandle get = lookup.findVirtual(type, "get" + property, MethodType.methodType(kind))
                        .asType(MethodType.methodType(Object.class, Object.class));
                MethodHandle set = lookup.findVirtual(type, "set" + property, MethodType.methodType(void.class, kind))
                        .asType(MethodType.methodType(void.class, Object.class, Object.class));
                pairs.add(new MethodHandle[] {get, set});
            } catch (NoSuchMethodException | IllegalAccessException e) {
                // a list without a public getter and setter is left as it is
            }
        }
        return pairs.toArray(MethodHandle[][]::new);
    }

    /** Interns every string value. */
    static final class InterningStrings extends StringDeserializer {
        private final InternTable<String> strings;

        InterningStrings(InternTable<String> strings) {
            this.strings = strings;
        }

        @Override
        public String deserialize(JsonParser p, DeserializationContext ctxt) throws JacksonException {
            if (p.currentToken() == JsonToken.VALUE_STRING) {
                // Straight from the parser's buffer: a value already in the table allocates nothing.
                return strings.intern(p.getStringCharacters(), p.getStringOffset(), p.getStringLength());
            }
            return strings.intern(super.deserialize(p, ctxt));
        }
    }

    /**
     * After the model object is built: its empty additionalProperties becomes the shared empty map, its List and
     * Map properties are compacted; a {@link #SHARED} class is first looked up by its JSON text ({@link TextParts})
     * and only decoded when that text was not seen before.
     */
    static final class CompactBean extends DelegatingDeserializer {
        private final Class<?> type;
        private final MethodHandle get;
        private final MethodHandle set;
        private final MethodHandle[][] lists;
        private final TextParts values;
        /** {@link #decodePart}, made once: a method reference made per call would be allocated per part. */
        private final TextParts.Decoder<DeserializationContext> parts = this::decodePart;

        CompactBean(
                Class<?> type,
                ValueDeserializer<?> delegate,
                MethodHandle get,
                MethodHandle set,
                MethodHandle[][] lists,
                TextParts values) {
            super(delegate);
            this.type = type;
            this.get = get;
            this.set = set;
            this.lists = lists;
            this.values = values;
        }

        @Override
        protected ValueDeserializer<?> newDelegatingInstance(ValueDeserializer<?> delegate) {
            return new CompactBean(type, delegate, get, set, lists, values);
        }

        /**
         * As {@link DelegatingDeserializer} contextualizes, but the type is made without resolving a model class up
         * to its interfaces, which would load its builder and fluent classes ({@link ModelBeanDeserializer#javaType}).
         */
        @Override
        public ValueDeserializer<?> createContextual(DeserializationContext ctxt, BeanProperty property) {
            JavaType handled = ModelBeanDeserializer.javaType(ctxt.getTypeFactory(), _delegatee.handledType());
            ValueDeserializer<?> contextual = ctxt.handleSecondaryContextualization(_delegatee, property, handled);
            return contextual == _delegatee ? this : newDelegatingInstance(contextual);
        }

        @Override
        public Object deserialize(JsonParser p, DeserializationContext ctxt) throws JacksonException {
            if (values == null || p.currentToken() == JsonToken.PROPERTY_NAME) {
                return compact(super.deserialize(p, ctxt)); // mid-object (after buffering): no text to share
            }
            return values.share(type, p, ctxt, parts);
        }

        /**
         * A part not seen before, from its text, frozen: it is about to be shared. Its nested parts were shared (and
         * frozen) as they were decoded; the rest of it is copied into frozen objects and unmodifiable collections.
         */
        private Object decodePart(byte[] json, DeserializationContext ctxt) {
            Object decoded;
            try (JsonParser part = ctxt.tokenStreamFactory().createParser(ctxt, json)) {
                part.nextToken();
                decoded = compact(super.deserialize(part, ctxt));
            }
            try {
                return FrozenParts.freeze(decoded);
            } catch (FrozenParts.NotFreezable e) {
                return new TextParts.Unshared(decoded); // something inside it cannot be frozen: not shared
            }
        }

        private Object compact(Object bean) {
            if (bean == null) {
                return null;
            }
            try {
                @SuppressWarnings("unchecked")
                Map<String, Object> extra = (Map<String, Object>) get.invokeExact(bean);
                if (extra != null && extra.isEmpty()) {
                    set.invokeExact(bean, EMPTY);
                }
                for (MethodHandle[] property : lists) {
                    Object value = (Object) property[0].invokeExact(bean);
                    Object compact = compactCollection(value);
                    if (compact != value) {
                        property[1].invokeExact(bean, compact);
                    }
                }
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
            return bean;
        }

        /**
         * A List property as an immutable list of its exact size (the shared one when empty; a list holding nulls
         * is kept); an empty Map property as the shared empty map (non-empty maps are kept: their order is part
         * of the JSON). Only properties declared as List or Map are touched, so the setter accepts the result.
         */
        private static Object compactCollection(Object value) {
            if (value instanceof List<?> list) {
                if (list.isEmpty()) {
                    return list == EMPTY_LIST ? list : EMPTY_LIST;
                }
                if (list instanceof java.util.ArrayList<?> && !list.contains(null)) {
                    return List.copyOf(list);
                }
            } else if (value instanceof Map<?, ?> map && map.isEmpty()) {
                return EMPTY;
            }
            return value;
        }
    }
}
