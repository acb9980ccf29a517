package io.kubeloop.client.codec;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.lang.annotation.Annotation;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.DeserializationConfig;
import tools.jackson.databind.JacksonModule;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.annotation.JsonDeserialize;
import tools.jackson.databind.deser.Deserializers;

/**
 * Deserializers for fabric8's generated model classes, made from the classes' fields instead of Jackson's bean
 * introspection. Jackson's introspection of a class reads every method's signature, and a fabric8 model class's
 * methods name its builder, whose superclass is its fluent: the first pod a cold JVM reads loaded about 250
 * builder and fluent classes it never uses and spent most of a second building bean deserializers, longer than
 * it then took to read the next thousand pods. A {@link ModelBeanDeserializer} needs only the fields, their
 * {@code @JsonProperty} names, and method handles found by name.
 *
 * <p>Only classes of the generated shape are taken (see {@link #analyze}): public, concrete, not generic, directly
 * extending Object, with a public no-argument constructor, no Jackson class annotations but the ones the generator
 * writes, every instance field either a {@code @JsonProperty} with a public setter of its type or the
 * {@code @JsonIgnore}d {@code additionalProperties} behind {@code setAdditionalProperty(String, Object)}, no
 * config override in the mapper, and no mix-in but one that only ignores names (which are then skipped).
 * Everything else, and any value that is not a JSON object, is left to Jackson. Methods' annotations are never
 * read (listing methods is what loads the builders): that the generated setters and the any-setter carry nothing
 * the fields do not say is what {@code ModelBeansTest} checks, for the fabric8 version kubeloop is built with: it
 * decodes, for every model class on the class path that is taken, objects with every property set, with unknown
 * properties and with nulls, and compares with plain Jackson.
 *
 * <p>Invariant: a value decodes to what Jackson's bean deserializer would give (same objects, same errors and
 * paths); only the cost of getting there differs.
 */
final class ModelBeans extends Deserializers.Base {

    private static final String MODEL_PACKAGE = "io.fabric8.kubernetes.api.model.";
    /** Class annotations of Jackson's that the generator writes and that change nothing in deserialization here. */
    private static final Set<Class<? extends Annotation>> NEUTRAL =
            Set.of(JsonInclude.class, JsonPropertyOrder.class, JsonIgnoreProperties.class, JsonDeserialize.class);

    private final Set<Class<?>> excluded;
    /** One deserializer per class and mapper (Jackson never caches them: see {@link ModelBeanDeserializer}). */
    private final Map<Class<?>, Optional<ModelBeanDeserializer>> beans = new ConcurrentHashMap<>();
    /** The same for classes with an ignoring mix-in (the mapper's mix-ins never change). */
    private final Map<Class<?>, Optional<ModelBeanDeserializer>> mixedBeans = new ConcurrentHashMap<>();

    private ModelBeans(Set<Class<?>> excluded) {
        this.excluded = excluded;
    }

    /**
     * The module; register it after {@link DeferredBeans} (Jackson asks later modules first) and before any module
     * that deserializes one of {@code excluded} itself.
     */
    static JacksonModule module(Set<Class<?>> excluded) {
        return DeferredBeans.moduleOf("kubeloop-model-beans", new ModelBeans(excluded));
    }

    @Override
    public ValueDeserializer<?> findBeanDeserializer(
            JavaType type, DeserializationConfig config, BeanDescription.Supplier bean) {
        Class<?> raw = type.getRawClass();
        if (!raw.getName().startsWith(MODEL_PACKAGE) || excluded.contains(raw)) {
            return null;
        }
        if (DeferredBeans.building(type)) {
            return null; // Jackson builds its own (DeferredBeans answers this lookup)
        }
        if (config.findConfigOverride(raw) != null) {
            return null;
        }
        Class<?> mixIn = config.findMixInClassFor(raw);
        if (mixIn == null) {
            return beans.computeIfAbsent(raw, ModelBeans::analyze).orElse(null);
        }
        Set<String> ignored = ignorals(mixIn);
        return ignored == null
                ? null
                : mixedBeans
                        .computeIfAbsent(raw, c -> analyze(c).map(d -> d.ignoring(ignored)))
                        .orElse(null);
    }

    /**
     * The names a mix-in that only says {@code @JsonIgnoreProperties} (such as {@code withoutManagedFields()}'s on
     * {@code ObjectMeta}) ignores; null for any other mix-in, which is left to Jackson.
     */
    private static Set<String> ignorals(Class<?> mixIn) {
        if (mixIn.getSuperclass() != Object.class
                || mixIn.getInterfaces().length != 0
                || mixIn.getDeclaredFields().length != 0
                || mixIn.getDeclaredMethods().length != 0) {
            return null;
        }
        Annotation[] annotations = mixIn.getDeclaredAnnotations();
        if (annotations.length != 1 || !(annotations[0] instanceof JsonIgnoreProperties i) || i.allowSetters()) {
            return null;
        }
        return Set.of(i.value());
    }

    @Override
    public boolean hasDeserializerFor(DeserializationConfig config, Class<?> valueType) {
        return false;
    }

    /**
     * Whether {@code type} is a model class of the generated shape's outline: in the model package, concrete, not
     * generic, directly extending Object, declaring its own {@code @JsonDeserialize} (the generator's
     * {@code using = None}, which overrides the {@code KubernetesDeserializer} of {@code KubernetesResource}).
     */
    static boolean isModel(Class<?> type) {
        int modifiers = type.getModifiers();
        return type.getName().startsWith(MODEL_PACKAGE)
                && Modifier.isPublic(modifiers)
                && !Modifier.isAbstract(modifiers)
                && !type.isInterface()
                && !type.isEnum()
                && !type.isRecord()
                && type.getSuperclass() == Object.class
                && type.getTypeParameters().length == 0
                && type.getEnclosingClass() == null
                && type.getDeclaredAnnotation(JsonDeserialize.class) != null;
    }

    /** A deserializer for {@code type} if it has the generated shape (see the class comment), else empty. */
    static Optional<ModelBeanDeserializer> analyze(Class<?> type) {
        if (!isModel(type)) {
            return Optional.empty();
        }
        Set<String> ignored = Set.of();
        for (Annotation a : type.getAnnotations()) {
            if (!isJackson(a)) {
                continue;
            }
            if (!NEUTRAL.contains(a.annotationType())
                    || a instanceof JsonDeserialize d && !isPlain(d)
                    || a instanceof JsonIgnoreProperties i && i.allowSetters()) {
                return Optional.empty();
            }
            if (a instanceof JsonIgnoreProperties i) {
                ignored = Set.of(i.value());
            }
        }
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        try {
            MethodHandle create = lookup.findConstructor(type, MethodType.methodType(void.class))
                    .asType(MethodType.methodType(Object.class));
            MethodHandle any = null;
            Map<String, ModelBeanDeserializer.Property> properties = new HashMap<>();
            for (Field field : type.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers())) {
                    continue;
                }
                JsonProperty name = null;
                boolean ignore = false;
                for (Annotation a : field.getAnnotations()) {
                    if (a instanceof JsonProperty p) {
                        name = p;
                    } else if (a instanceof JsonIgnore i && i.value()) {
                        ignore = true;
                    } else if (isJackson(a) && !(a instanceof JsonInclude)) { // JsonInclude: only for writing
                        return Optional.empty();
                    }
                }
                if (ignore
                        && name == null
                        && field.getName().equals("additionalProperties")
                        && field.getType() == Map.class) {
                    any = lookup.findVirtual(
                                    type,
                                    "setAdditionalProperty",
                                    MethodType.methodType(void.class, String.class, Object.class))
                            .asType(MethodType.methodType(void.class, Object.class, String.class, Object.class));
                    continue;
                }
                if (name == null || ignore || name.access() != JsonProperty.Access.AUTO) {
                    return Optional.empty();
                }
                String json = name.value().isEmpty() ? field.getName() : name.value();
                MethodHandle set = lookup.findVirtual(
                                type, "set" + accessorSuffix(field), MethodType.methodType(void.class, field.getType()))
                        .asType(MethodType.methodType(void.class, Object.class, Object.class));
                if (ignored.contains(json)
                        || properties.put(json, new ModelBeanDeserializer.Property(field, set)) != null) {
                    return Optional.empty();
                }
            }
            if (any == null) {
                return Optional.empty();
            }
            return Optional.of(new ModelBeanDeserializer(type, create, properties, ignored, any));
        } catch (NoSuchMethodException | IllegalAccessException | SecurityException e) {
            return Optional.empty();
        }
    }

    /**
     * What the generator puts after {@code get}/{@code set} for a field: its name capitalized, without a leading
     * underscore (the field {@code _continue} has {@code setContinue}).
     */
    static String accessorSuffix(Field field) {
        String name = field.getName().startsWith("_") ? field.getName().substring(1) : field.getName();
        return Character.toUpperCase(name.charAt(0)) + name.substring(1);
    }

    private static boolean isJackson(Annotation a) {
        String name = a.annotationType().getName();
        return name.startsWith("com.fasterxml.jackson.") || name.startsWith("tools.jackson.");
    }

    /** What the generator writes on every class: {@code @JsonDeserialize(using = ValueDeserializer.None.class)}. */
    private static boolean isPlain(JsonDeserialize d) {
        return d.using() == ValueDeserializer.None.class
                && d.contentUsing() == ValueDeserializer.None.class
                && d.keyUsing() == tools.jackson.databind.KeyDeserializer.None.class
                && d.builder() == Void.class
                && d.converter() == tools.jackson.databind.util.Converter.None.class
                && d.contentConverter() == tools.jackson.databind.util.Converter.None.class
                && d.as() == Void.class
                && d.keyAs() == Void.class
                && d.contentAs() == Void.class;
    }
}
