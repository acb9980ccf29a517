package io.kubeloop.client.codec;

import io.fabric8.kubernetes.api.model.AnyType;
import io.fabric8.kubernetes.api.model.Quantity;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Shares model parts (containers, volumes, tolerations, ...) between decoded objects when they are written exactly
 * alike. Not by fabric8's {@code equals}, which is looser than the JSON: quantities compare by value ({@code "1000m"}
 * equals {@code "1"}, {@code "1Gi"} equals {@code "1073741824"}) and maps ignore their order, so sharing by it would
 * make an object come back written as another object's part. Here two parts are the same when they are of one class
 * and their fields are: strings and numbers equal, quantities by their text, maps and lists entry by entry in order,
 * nested model objects field by field. (It also spares fabric8's {@code Quantity.hashCode}, which computes with
 * {@code BigDecimal}.)
 *
 * <p>Bounded like {@link InternTable} (it is one). Thread-safe.
 */
final class ExactParts {

    private final InternTable<Part> table;

    ExactParts(int slots) {
        this.table = new InternTable<>(slots);
    }

    /** A part written exactly like {@code part}: one seen before if its slot still holds it, else {@code part}. */
    Object share(Object part) {
        return table.intern(new Part(part, hash(part))).value();
    }

    /** A part and its exact hash; equal when {@link #same} says so. */
    private record Part(Object value, int hash) {

        @Override
        public boolean equals(Object o) {
            return o instanceof Part p && p.hash == hash && same(p.value, value);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** Whether {@code a} and {@code b} serialize to the same JSON (see the class comment). */
    static boolean same(Object a, Object b) {
        if (a == b) {
            return true;
        }
        if (a == null || b == null || a.getClass() != b.getClass()) {
            return false;
        }
        if (a instanceof Quantity qa) {
            Quantity qb = (Quantity) b;
            return Objects.equals(qa.getAmount(), qb.getAmount()) && Objects.equals(qa.getFormat(), qb.getFormat());
        }
        if (a instanceof AnyType ta) {
            return same(ta.getValue(), ((AnyType) b).getValue());
        }
        if (a instanceof List<?> la) {
            List<?> lb = (List<?>) b;
            if (la.size() != lb.size()) {
                return false;
            }
            for (int i = 0; i < la.size(); i++) {
                if (!same(la.get(i), lb.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof Map<?, ?> ma) {
            Map<?, ?> mb = (Map<?, ?>) b;
            if (ma.size() != mb.size()) {
                return false;
            }
            Iterator<? extends Map.Entry<?, ?>> ib = mb.entrySet().iterator();
            for (Map.Entry<?, ?> ea : ma.entrySet()) {
                Map.Entry<?, ?> eb = ib.next();
                if (!Objects.equals(ea.getKey(), eb.getKey()) || !same(ea.getValue(), eb.getValue())) {
                    return false;
                }
            }
            return true;
        }
        MethodHandle[] fields = Fields.of(a.getClass());
        if (fields == null) {
            return a.equals(b);
        }
        try {
            for (MethodHandle field : fields) {
                if (!same((Object) field.invokeExact(a), (Object) field.invokeExact(b))) {
                    return false;
                }
            }
        } catch (Throwable e) {
            throw new IllegalStateException("reading a field of " + a.getClass().getName(), e);
        }
        return true;
    }

    /** A hash consistent with {@link #same}. */
    static int hash(Object o) {
        if (o == null) {
            return 0;
        }
        if (o instanceof Quantity q) {
            return Objects.hashCode(q.getAmount()) * 31 + Objects.hashCode(q.getFormat());
        }
        if (o instanceof AnyType t) {
            return hash(t.getValue()) + 7;
        }
        if (o instanceof List<?> list) {
            int h = 1;
            for (Object e : list) {
                h = h * 31 + hash(e);
            }
            return h;
        }
        if (o instanceof Map<?, ?> map) {
            int h = 3;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                h = (h * 31 + Objects.hashCode(e.getKey())) * 31 + hash(e.getValue());
            }
            return h;
        }
        MethodHandle[] fields = Fields.of(o.getClass());
        if (fields == null) {
            return o.hashCode();
        }
        int h = o.getClass().hashCode();
        try {
            for (MethodHandle field : fields) {
                h = h * 31 + hash((Object) field.invokeExact(o));
            }
        } catch (Throwable e) {
            throw new IllegalStateException("reading a field of " + o.getClass().getName(), e);
        }
        return h;
    }

    /** The instance fields of fabric8 model classes, read through method handles; computed once per class. */
    private static final class Fields {
        private static final ClassValue<MethodHandle[]> FIELDS = new ClassValue<>() {
            @Override
            protected MethodHandle[] computeValue(Class<?> type) {
                return type.getName().startsWith("io.fabric8.") ? read(type) : null;
            }
        };

        static MethodHandle[] of(Class<?> type) {
            return FIELDS.get(type);
        }

        private static MethodHandle[] read(Class<?> type) {
            List<MethodHandle> handles = new ArrayList<>();
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
                for (Field f : c.getDeclaredFields()) {
                    if (Modifier.isStatic(f.getModifiers())) {
                        continue;
                    }
                    try {
                        f.setAccessible(true);
                        handles.add(lookup.unreflectGetter(f).asType(MethodType.methodType(Object.class,
                                Object.class)));
                    } catch (RuntimeException | IllegalAccessException e) {
                        return null; // not readable: fall back to the class's own equals for this class
                    }
                }
            }
            return handles.toArray(MethodHandle[]::new);
        }
    }
}
