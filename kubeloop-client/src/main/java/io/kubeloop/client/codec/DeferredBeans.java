package io.kubeloop.client.codec;

import java.lang.reflect.Modifier;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.BeanProperty;
import tools.jackson.databind.DeserializationConfig;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.JacksonModule;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.deser.Deserializers;
import tools.jackson.databind.deser.impl.ObjectIdReader;
import tools.jackson.databind.jsontype.TypeDeserializer;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.type.LogicalType;
import tools.jackson.databind.util.AccessPattern;

/**
 * Builds the deserializer of a fabric8 model class when a value of that class is first read, not when the class
 * is first reachable. Jackson resolves a bean's properties eagerly: asking for Pod's deserializer introspects
 * every class reachable from Pod (about 150: every volume source, probe, affinity term, ...), most of which a
 * cluster's pods never contain, and a cold JVM spends the better part of a second on it before reading the first
 * pod. Here each property of a model class gets a {@link Deferred} stand-in that asks Jackson for the real
 * deserializer (built, resolved, cached and contextualized exactly as Jackson would have) on its first value.
 *
 * <p>Invariant: what is decoded is the same as without this module; only when the real deserializers are built
 * differs. Classes with their own deserializer (class annotations, or those in {@code excluded}, which another
 * module handles) are left alone, and so are abstract classes and interfaces.
 */
final class DeferredBeans extends Deserializers.Base {

    /** The type whose real deserializer this thread is asking for: the next lookup of it is answered by Jackson. */
    private static final ThreadLocal<JavaType> BUILDING = new ThreadLocal<>();

    private static final String MODEL_PACKAGE = "io.fabric8.kubernetes.api.model.";

    private final Set<Class<?>> excluded;

    private DeferredBeans(Set<Class<?>> excluded) {
        this.excluded = excluded;
    }

    /** The module; register it before any module that deserializes one of {@code excluded} itself. */
    static JacksonModule module(Set<Class<?>> excluded) {
        return moduleOf("kubeloop-deferred-beans", new DeferredBeans(excluded));
    }

    /** A module that adds {@code deserializers} (Jackson asks the modules registered later first). */
    static JacksonModule moduleOf(String name, Deserializers deserializers) {
        return new SimpleModule(name) {
            @Override
            public void setupModule(SetupContext context) {
                super.setupModule(context);
                context.addDeserializers(deserializers);
            }
        };
    }

    @Override
    public ValueDeserializer<?> findBeanDeserializer(
            JavaType type, DeserializationConfig config, BeanDescription.Supplier bean) {
        Class<?> raw = type.getRawClass();
        if (!raw.getName().startsWith(MODEL_PACKAGE)
                || excluded.contains(raw)
                || raw.isInterface()
                || Modifier.isAbstract(raw.getModifiers())) {
            return null;
        }
        if (type.equals(BUILDING.get())) {
            BUILDING.remove();
            return null; // Jackson builds the real one
        }
        return new Deferred(type, null);
    }

    /** Whether this thread is asking Jackson for {@code type}'s own deserializer (through {@link Deferred}). */
    static boolean building(JavaType type) {
        return type.equals(BUILDING.get());
    }

    @Override
    public boolean hasDeserializerFor(DeserializationConfig config, Class<?> valueType) {
        return false;
    }

    /**
     * Stands in for a model class's deserializer until its first use, then passes every call to the real one.
     * Not cachable, so Jackson's cache only ever holds real deserializers.
     */
    static final class Deferred extends ValueDeserializer<Object> {
        private final JavaType type;
        private final BeanProperty property;
        private volatile ValueDeserializer<Object> real;

        Deferred(JavaType type, BeanProperty property) {
            this.type = type;
            this.property = property;
        }

        private ValueDeserializer<Object> real(DeserializationContext ctxt) {
            ValueDeserializer<Object> r = real;
            if (r == null) {
                BUILDING.set(type);
                try {
                    r = ctxt.findContextualValueDeserializer(type, property);
                } finally {
                    BUILDING.remove();
                }
                real = r;
            }
            return r;
        }

        @Override
        public ValueDeserializer<?> createContextual(DeserializationContext ctxt, BeanProperty property) {
            return property == this.property ? this : new Deferred(type, property);
        }

        @Override
        public Object deserialize(JsonParser p, DeserializationContext ctxt) throws JacksonException {
            return real(ctxt).deserialize(p, ctxt);
        }

        @Override
        public Object deserialize(JsonParser p, DeserializationContext ctxt, Object intoValue) throws JacksonException {
            return real(ctxt).deserialize(p, ctxt, intoValue);
        }

        @Override
        public Object deserializeWithType(JsonParser p, DeserializationContext ctxt, TypeDeserializer types)
                throws JacksonException {
            return real(ctxt).deserializeWithType(p, ctxt, types);
        }

        @Override
        public Object deserializeWithType(
                JsonParser p, DeserializationContext ctxt, TypeDeserializer types, Object intoValue)
                throws JacksonException {
            return real(ctxt).deserializeWithType(p, ctxt, types, intoValue);
        }

        @Override
        public Object getNullValue(DeserializationContext ctxt) {
            return real(ctxt).getNullValue(ctxt);
        }

        @Override
        public AccessPattern getNullAccessPattern() {
            return AccessPattern.DYNAMIC; // ask getNullValue every time: the real answer is not known yet
        }

        @Override
        public Object getAbsentValue(DeserializationContext ctxt) {
            return real(ctxt).getAbsentValue(ctxt);
        }

        @Override
        public Object getEmptyValue(DeserializationContext ctxt) {
            return real(ctxt).getEmptyValue(ctxt);
        }

        @Override
        public AccessPattern getEmptyAccessPattern() {
            return AccessPattern.DYNAMIC;
        }

        @Override
        public ObjectIdReader getObjectIdReader(DeserializationContext ctxt) {
            return real(ctxt).getObjectIdReader(ctxt);
        }

        @Override
        public Class<?> handledType() {
            return type.getRawClass();
        }

        @Override
        public LogicalType logicalType() {
            return LogicalType.POJO; // as every bean deserializer answers
        }

        @Override
        public Boolean supportsUpdate(DeserializationConfig config) {
            return Boolean.TRUE; // as every bean deserializer answers
        }

        @Override
        public boolean isCachable() {
            return false;
        }
    }
}
