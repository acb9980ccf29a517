package io.kubeloop.client.codec;

import java.lang.invoke.MethodHandle;
import java.lang.reflect.Field;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.DeserializationConfig;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.KeyDeserializer;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.jsontype.TypeDeserializer;
import tools.jackson.databind.type.LogicalType;
import tools.jackson.databind.type.TypeFactory;
import tools.jackson.databind.util.AccessPattern;

/**
 * A fabric8 model class's deserializer, made by {@link ModelBeans} from the class's fields: reads a JSON object
 * property by property the way Jackson's {@code BeanDeserializer} does for such a class: the no-argument
 * constructor, then each known property's value through the deserializer Jackson finds for the property's type
 * (made on the property's first value), set with its setter; a JSON null becomes that deserializer's null value;
 * ignored names are skipped; every other name goes to {@code setAdditionalProperty} as an untyped value, its name
 * through the mapper's String key deserializer; a failure is wrapped with the object and property it happened in.
 * Anything but an object (or an object's first property), updating an existing object, reading with a view, and the
 * empty value are passed to Jackson's own deserializer for the class, built the first time one of them happens.
 *
 * <p>Not cachable: Jackson's cache must only ever hold Jackson's own deserializer for the class (which the passing
 * above asks for). {@link ModelBeans} keeps one instance per class and mapper.
 */
final class ModelBeanDeserializer extends ValueDeserializer<Object> {

    private final Class<?> type;
    private final MethodHandle create;
    private final Map<String, Property> properties;
    private final Set<String> ignored;
    /** {@code setAdditionalProperty(String, Object)}, as (Object, String, Object)void. */
    private final MethodHandle any;
    /** What {@code any} is given, made on the first unknown name. */
    private volatile KeyDeserializer anyNames;

    private volatile ValueDeserializer<Object> anyValues;
    /** Jackson's own deserializer for the class, made the first time something other than an object comes. */
    private volatile ValueDeserializer<Object> jackson;

    ModelBeanDeserializer(
            Class<?> type,
            MethodHandle create,
            Map<String, Property> properties,
            Set<String> ignored,
            MethodHandle any) {
        this.type = type;
        this.create = create;
        this.properties = Map.copyOf(properties);
        this.ignored = ignored;
        this.any = any;
    }

    /**
     * This deserializer with {@code names} as its ignored names instead of the class's own, as a mix-in's
     * {@code @JsonIgnoreProperties} overrides the class's: they are skipped, a known property among them too.
     */
    ModelBeanDeserializer ignoring(Set<String> names) {
        Map<String, Property> kept = new java.util.HashMap<>(properties);
        kept.keySet().removeAll(names);
        return new ModelBeanDeserializer(type, create, kept, Set.copyOf(names), any);
    }

    @Override
    public Object deserialize(JsonParser p, DeserializationContext ctxt) throws JacksonException {
        String name;
        if (ctxt.getActiveView() != null) {
            return jackson(ctxt).deserialize(p, ctxt); // views are Jackson's
        } else if (p.isExpectedStartObjectToken()) {
            name = p.nextName();
        } else if (p.hasToken(JsonToken.PROPERTY_NAME)) {
            name = p.currentName();
        } else {
            return jackson(ctxt).deserialize(p, ctxt);
        }
        Object bean = instantiate(ctxt);
        p.assignCurrentValue(bean);
        for (; name != null; name = p.nextName()) {
            p.nextToken();
            Property property = properties.get(name);
            try {
                if (property != null) {
                    property.deserializeAndSet(p, ctxt, bean);
                } else if (ignored.contains(name)) {
                    p.skipChildren();
                } else {
                    setAny(p, ctxt, bean, name);
                }
            } catch (Throwable e) {
                throw wrap(e, bean, name, ctxt);
            }
        }
        return bean;
    }

    @Override
    public Object deserialize(JsonParser p, DeserializationContext ctxt, Object intoValue) throws JacksonException {
        return jackson(ctxt).deserialize(p, ctxt, intoValue);
    }

    @Override
    public Object deserializeWithType(JsonParser p, DeserializationContext ctxt, TypeDeserializer types)
            throws JacksonException {
        return jackson(ctxt).deserializeWithType(p, ctxt, types);
    }

    @Override
    public Object getEmptyValue(DeserializationContext ctxt) {
        return jackson(ctxt).getEmptyValue(ctxt);
    }

    @Override
    public AccessPattern getEmptyAccessPattern() {
        return AccessPattern.DYNAMIC;
    }

    private Object instantiate(DeserializationContext ctxt) throws JacksonException {
        try {
            return (Object) create.invokeExact();
        } catch (Error e) {
            throw e;
        } catch (Throwable e) {
            return ctxt.handleInstantiationProblem(type, null, e); // as Jackson's default creator does
        }
    }

    private void setAny(JsonParser p, DeserializationContext ctxt, Object bean, String name) throws Throwable {
        KeyDeserializer names = anyNames;
        ValueDeserializer<Object> values = anyValues;
        if (names == null || values == null) {
            names = ctxt.findKeyDeserializer(ctxt.constructType(String.class), null);
            values = ctxt.findContextualValueDeserializer(ctxt.constructType(Object.class), null);
            anyNames = names;
            anyValues = values;
        }
        Object value = p.hasToken(JsonToken.VALUE_NULL) ? values.getNullValue(ctxt) : values.deserialize(p, ctxt);
        any.invokeExact(bean, (String) names.deserializeKey(name, ctxt), value);
    }

    /** As Jackson's bean deserializers wrap a failure in a property: with the path to it. */
    private static JacksonException wrap(Throwable e, Object bean, String name, DeserializationContext ctxt) {
        Throwable t = e;
        while (t instanceof java.lang.reflect.InvocationTargetException && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof Error error) {
            throw error;
        }
        if (t instanceof RuntimeException r
                && !(t instanceof JacksonException)
                && !ctxt.isEnabled(DeserializationFeature.WRAP_EXCEPTIONS)) {
            throw r;
        }
        return DatabindException.wrapWithPath(ctxt, t, new JacksonException.Reference(bean, name));
    }

    private ValueDeserializer<Object> jackson(DeserializationContext ctxt) {
        ValueDeserializer<Object> j = jackson;
        if (j == null) {
            j = new DeferredBeans.Deferred(ctxt.constructType(type), null);
            jackson = j;
        }
        return j;
    }

    @Override
    public Class<?> handledType() {
        return type;
    }

    @Override
    public LogicalType logicalType() {
        return LogicalType.POJO;
    }

    @Override
    public Boolean supportsUpdate(DeserializationConfig config) {
        return Boolean.TRUE;
    }

    @Override
    public boolean isCachable() {
        return false;
    }

    /**
     * {@code type} as Jackson's TypeFactory would make it, except that a model class {@link ModelBeans#isModel
     * ModelBeans takes} is not resolved up to its interfaces: the type argument of its {@code Editable<XBuilder>}
     * would load its builder and fluent classes. Nothing is lost: such a class declares its own
     * {@code @JsonDeserialize}, which wins over its interfaces', and they carry no other class annotation.
     */
    static JavaType javaType(TypeFactory types, Type type) {
        if (type instanceof Class<?> c && ModelBeans.isModel(c)) {
            return TypeFactory.unsafeSimpleType(c);
        }
        if (type instanceof ParameterizedType p
                && p.getActualTypeArguments().length == 1
                && p.getRawType() == List.class) {
            return types.constructCollectionType(List.class, javaType(types, p.getActualTypeArguments()[0]));
        }
        if (type instanceof ParameterizedType p
                && p.getActualTypeArguments().length == 2
                && p.getRawType() == Map.class) {
            return types.constructMapType(
                    Map.class,
                    javaType(types, p.getActualTypeArguments()[0]),
                    javaType(types, p.getActualTypeArguments()[1]));
        }
        return types.constructType(type);
    }

    /** A property: its field (for its declared type) and its setter, as (Object, Object)void. */
    static final class Property {
        private final Field field;
        private final MethodHandle set;
        private volatile ValueDeserializer<Object> values;
        /** Set with {@link #values} when the type needs one (polymorphic types), else null. */
        private volatile TypeDeserializer types;

        Property(Field field, MethodHandle set) {
            this.field = field;
            this.set = set;
        }

        /** As Jackson's setter properties do (a null the deserializer makes counts as JSON null). */
        void deserializeAndSet(JsonParser p, DeserializationContext ctxt, Object bean) throws Throwable {
            ValueDeserializer<Object> d = values;
            if (d == null) {
                d = resolve(ctxt);
            }
            Object value;
            if (p.hasToken(JsonToken.VALUE_NULL)) {
                value = d.getNullValue(ctxt);
            } else {
                TypeDeserializer t = types;
                value = t == null ? d.deserialize(p, ctxt) : d.deserializeWithType(p, ctxt, t);
                if (value == null) {
                    value = d.getNullValue(ctxt);
                }
            }
            set.invokeExact(bean, value);
        }

        private ValueDeserializer<Object> resolve(DeserializationContext ctxt) {
            JavaType type = javaType(ctxt.getTypeFactory(), field.getGenericType());
            TypeDeserializer t = ctxt.findTypeDeserializer(type);
            ValueDeserializer<Object> d = ctxt.findContextualValueDeserializer(type, null);
            types = t;
            values = d;
            return d;
        }
    }
}
