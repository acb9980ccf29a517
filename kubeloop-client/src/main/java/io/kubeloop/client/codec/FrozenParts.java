package io.kubeloop.client.codec;

import io.fabric8.kubernetes.api.model.Quantity;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Read-only copies of the model parts that {@link Decoding#compact()} shares between objects (containers, volumes,
 * tolerations, ..., managedFields' {@code fieldsV1}). A shared part is one instance in many cached objects and in
 * every later decode of the same JSON text, so a change to it would show in all of them: a frozen part refuses
 * every change instead.
 *
 * <p>A frozen part is an instance of a subclass of its model class (made here, at run time, once per class) that
 * overrides every setter — one per field, as fabric8's generator writes them, and {@code setAdditionalProperty} —
 * to throw {@link UnsupportedOperationException} with a message naming the part and the rule. Its fields are
 * written once, by {@link #freeze}, through the model class's own fields; its lists and maps are unmodifiable and
 * its model-typed values frozen in turn, so nothing reachable from a frozen part can be changed through it. It
 * has no field of its own, so it takes exactly the heap of the model object; it is {@code equals} to the model
 * object with the same values, serializes the same way, and fabric8's builders copy it into ordinary objects.
 *
 * <p>One model class is not subclassed: {@code Quantity}, whose {@code equals} compares classes. A frozen part keeps
 * ordinary Quantities that nobody else holds and hands out a fresh copy on every read (its generated getters, its
 * maps and lists do), so a change to what a reader got changes nothing else.
 *
 * <p>Invariant: every value {@link #freeze} returns is immutable all the way down: a frozen part, a scalar, an
 * unmodifiable collection of such, or a {@link JsonTextMap}. A value it cannot make so is refused with
 * {@link NotFreezable}, and the caller must then not share it.
 */
final class FrozenParts {

    /** What every frozen part implements: frozen values found inside a part being frozen are kept as they are. */
    interface Frozen {}

    /** A value that cannot be made immutable (a model class not of the generated shape): it must not be shared. */
    static final class NotFreezable extends Exception {
        private static final long serialVersionUID = 1L;

        NotFreezable(String message) {
            super(message, null, false, false);
        }
    }

    private static final Map<String, Object> EMPTY_MAP = Collections.emptyMap();
    private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();
    /** Defining a class twice fails; a class is defined once per model class, so a plain lock is enough. */
    private static final ReentrantLock DEFINING = new ReentrantLock();

    /** How to freeze instances of a class: null when it cannot be (not a fabric8 model class of the usual shape). */
    private static final ClassValue<Copier> COPIERS = new ClassValue<>() {
        @Override
        protected Copier computeValue(Class<?> type) {
            return copier(type);
        }
    };

    private FrozenParts() {}

    /** Whether instances of {@code type} can be frozen. */
    static boolean canFreeze(Class<?> type) {
        return COPIERS.get(type) != null;
    }

    /**
     * {@code value} as an immutable value equal to it: itself when it already is one, else a frozen copy (model
     * objects, recursively) or an unmodifiable copy (lists and maps, with their order).
     */
    static Object freeze(Object value) throws NotFreezable {
        if (value == null
                || value instanceof Frozen
                || value instanceof String
                || value instanceof Boolean
                || value instanceof Integer
                || value instanceof Long
                || value instanceof Double
                || value instanceof BigDecimal
                || value instanceof BigInteger
                || value instanceof Float
                || value instanceof Short
                || value instanceof Byte
                || value instanceof Character
                || value instanceof Enum<?>
                || value instanceof JsonTextMap) {
            return value;
        }
        if (value instanceof Quantity q) {
            return copy(q); // kept private to its frozen holder, which hands out copies (see the class comment)
        }
        if (value instanceof List<?> list) {
            return freezeList(list);
        }
        if (value instanceof Map<?, ?> map) {
            return freezeMap(map);
        }
        Copier copier = COPIERS.get(value.getClass());
        if (copier == null) {
            throw new NotFreezable(value.getClass().getName() + " cannot be frozen");
        }
        return copier.copy(value);
    }

    private static List<?> freezeList(List<?> list) throws NotFreezable {
        if (list.isEmpty()) {
            return List.of();
        }
        Object[] items = new Object[list.size()];
        boolean nulls = false;
        boolean quantities = false;
        int i = 0;
        for (Object item : list) {
            items[i++] = freeze(item);
            nulls |= item == null;
            quantities |= item instanceof Quantity;
        }
        if (quantities) {
            return new FrozenList(items);
        }
        // List.of refuses nulls, which a list in an unknown field may hold.
        return nulls ? Collections.unmodifiableList(java.util.Arrays.asList(items)) : List.of(items);
    }

    private static Map<?, ?> freezeMap(Map<?, ?> map) throws NotFreezable {
        if (map.isEmpty()) {
            return EMPTY_MAP;
        }
        Map<Object, Object> copy = LinkedHashMap.newLinkedHashMap(map.size());
        for (Map.Entry<?, ?> e : map.entrySet()) {
            copy.put(freeze(e.getKey()), freeze(e.getValue()));
        }
        return new FrozenMap(copy);
    }

    /**
     * What a frozen part hands out for a value it holds: the value itself, except a {@link Quantity}, which is
     * copied. (Quantity's {@code equals} compares classes, so a frozen subclass would never equal an ordinary
     * Quantity; an ordinary one is kept instead, private to its holder, and each read gets a fresh copy.)
     * Called by the generated getters of Quantity-valued fields.
     */
    static Object readable(Object value) {
        return value instanceof Quantity q ? copy(q) : value;
    }

    private static Quantity copy(Quantity q) {
        Quantity copy = new Quantity(q.getAmount(), q.getFormat());
        Map<String, Object> extra = q.getAdditionalProperties();
        if (extra != null && !extra.isEmpty()) {
            copy.setAdditionalProperties(new LinkedHashMap<>(extra));
        }
        return copy;
    }

    private static UnsupportedOperationException refusedCollection(String what) {
        return new UnsupportedOperationException("this " + what + " belongs to a part decoded by Decoding.compact(),"
                + " which shares it with every other cached object, and every later decode, holding the same JSON,"
                + " so it must never change; copy the object that holds it first (for example"
                + " new PodBuilder(pod).build()) and change the copy");
    }

    /**
     * A frozen part's non-empty map: read-only, in the order it was decoded, Quantity values handed out as copies.
     * Every mutator throws, naming the rule.
     */
    static final class FrozenMap extends java.util.AbstractMap<Object, Object> {
        private final Map<Object, Object> map;

        FrozenMap(Map<Object, Object> map) {
            this.map = map;
        }

        @Override
        public int size() {
            return map.size();
        }

        @Override
        public boolean containsKey(Object key) {
            return map.containsKey(key);
        }

        @Override
        public Object get(Object key) {
            return readable(map.get(key));
        }

        @Override
        public java.util.Set<Map.Entry<Object, Object>> entrySet() {
            return new java.util.AbstractSet<>() {
                @Override
                public java.util.Iterator<Map.Entry<Object, Object>> iterator() {
                    java.util.Iterator<Map.Entry<Object, Object>> entries =
                            map.entrySet().iterator();
                    return new java.util.Iterator<>() {
                        @Override
                        public boolean hasNext() {
                            return entries.hasNext();
                        }

                        @Override
                        public Map.Entry<Object, Object> next() {
                            Map.Entry<Object, Object> e = entries.next();
                            return new java.util.AbstractMap.SimpleImmutableEntry<>(e.getKey(), readable(e.getValue()));
                        }

                        @Override
                        public void remove() {
                            throw refusedCollection("map");
                        }
                    };
                }

                @Override
                public int size() {
                    return map.size();
                }
            };
        }

        @Override
        public Object put(Object key, Object value) {
            throw refusedCollection("map");
        }

        @Override
        public Object remove(Object key) {
            throw refusedCollection("map");
        }

        @Override
        public void putAll(Map<?, ?> m) {
            throw refusedCollection("map");
        }

        @Override
        public void clear() {
            throw refusedCollection("map");
        }

        @Override
        public void replaceAll(java.util.function.BiFunction<? super Object, ? super Object, ?> function) {
            throw refusedCollection("map");
        }

        @Override
        public Object putIfAbsent(Object key, Object value) {
            throw refusedCollection("map");
        }

        @Override
        public boolean remove(Object key, Object value) {
            throw refusedCollection("map");
        }

        @Override
        public boolean replace(Object key, Object oldValue, Object newValue) {
            throw refusedCollection("map");
        }

        @Override
        public Object replace(Object key, Object value) {
            throw refusedCollection("map");
        }

        @Override
        public Object computeIfAbsent(Object key, java.util.function.Function<? super Object, ?> f) {
            throw refusedCollection("map");
        }

        @Override
        public Object computeIfPresent(Object key, java.util.function.BiFunction<? super Object, ? super Object, ?> f) {
            throw refusedCollection("map");
        }

        @Override
        public Object compute(Object key, java.util.function.BiFunction<? super Object, ? super Object, ?> f) {
            throw refusedCollection("map");
        }

        @Override
        public Object merge(
                Object key, Object value, java.util.function.BiFunction<? super Object, ? super Object, ?> f) {
            throw refusedCollection("map");
        }
    }

    /** A frozen part's list holding Quantities: read-only, each Quantity handed out as a copy. */
    static final class FrozenList extends java.util.AbstractList<Object> implements java.util.RandomAccess {
        private final Object[] items;

        FrozenList(Object[] items) {
            this.items = items;
        }

        @Override
        public Object get(int index) {
            return readable(items[index]);
        }

        @Override
        public int size() {
            return items.length;
        }
    }

    /**
     * The exception a frozen part's setter throws (called by the generated subclasses): it names the part, the
     * setter and the rule.
     */
    static UnsupportedOperationException refused(Object part, String setter) {
        Class<?> model = part.getClass().getSuperclass();
        String name = null;
        try {
            MethodHandle getName =
                    MethodHandles.publicLookup().findVirtual(model, "getName", MethodType.methodType(String.class));
            name = (String) getName.invoke(part);
        } catch (Throwable e) {
            // a part without a name is named by its class alone
        }
        return new UnsupportedOperationException(model.getSimpleName() + (name == null ? "" : " \"" + name + "\"")
                + ": " + setter + " refused. This part was decoded by Decoding.compact(), which shares it with every"
                + " other cached object, and every later decode, holding the same JSON, so it must never change;"
                + " copy the object that holds it first (for example new PodBuilder(pod).build()) and change the copy");
    }

    /** The frozen subclass of one model class and how to fill it from an instance of the model class. */
    private record Copier(MethodHandle create, VarHandle[] fields) {
        Object copy(Object from) throws NotFreezable {
            Object to;
            try {
                to = create.invoke();
            } catch (Throwable e) {
                throw new IllegalStateException(
                        "cannot make a frozen " + from.getClass().getName(), e);
            }
            for (VarHandle field : fields) {
                field.set(to, freeze(field.get(from)));
            }
            return to;
        }
    }

    /**
     * A copier for a fabric8 model class: public, not final, a public no-argument constructor, and a public setter
     * named after each field (a field without one can only be changed through its value, which is frozen too).
     */
    private static Copier copier(Class<?> type) {
        if (type == Quantity.class
                || !type.getName().startsWith("io.fabric8.")
                || Frozen.class.isAssignableFrom(type)
                || !Modifier.isPublic(type.getModifiers())
                || Modifier.isFinal(type.getModifiers())
                || Modifier.isAbstract(type.getModifiers())
                || type.isInterface()
                || type.isEnum()
                || type.isArray()
                || type.getEnclosingClass() != null && !Modifier.isStatic(type.getModifiers())) {
            return null;
        }
        try {
            MethodHandles.publicLookup().findConstructor(type, MethodType.methodType(void.class));
            List<VarHandle> fields = new ArrayList<>();
            Map<String, MethodType> setters = new LinkedHashMap<>(); // by name and descriptor
            List<String> getters = new ArrayList<>(); // of Quantity fields
            for (Class<?> level = type; level != Object.class; level = level.getSuperclass()) {
                if (!level.getName().startsWith("io.fabric8.")) {
                    return null; // a superclass with state of its own is not known to be copied right
                }
                MethodHandles.Lookup fieldAccess = MethodHandles.privateLookupIn(level, LOOKUP);
                for (Field f : level.getDeclaredFields()) {
                    if (Modifier.isStatic(f.getModifiers())) {
                        continue;
                    }
                    fields.add(fieldAccess.unreflectVarHandle(f));
                    if (f.getType() == Quantity.class) {
                        String getter = "get" + ModelBeans.accessorSuffix(f);
                        try {
                            MethodHandles.publicLookup()
                                    .findVirtual(type, getter, MethodType.methodType(Quantity.class));
                            getters.add(getter);
                        } catch (NoSuchMethodException e) {
                            return null; // a Quantity that cannot be handed out as a copy
                        }
                    }
                    String setter = "set" + ModelBeans.accessorSuffix(f);
                    MethodType signature = MethodType.methodType(void.class, f.getType());
                    try {
                        MethodHandles.publicLookup().findVirtual(type, setter, signature);
                        setters.put(setter + signature.toMethodDescriptorString(), signature);
                    } catch (NoSuchMethodException e) {
                        // no setter for this field: nothing to override
                    }
                }
            }
            try {
                MethodType any = MethodType.methodType(void.class, String.class, Object.class);
                MethodHandles.publicLookup().findVirtual(type, "setAdditionalProperty", any);
                setters.put("setAdditionalProperty" + any.toMethodDescriptorString(), any);
            } catch (NoSuchMethodException e) {
                // a class without unknown properties
            }
            List<String> names = new ArrayList<>();
            for (String key : setters.keySet()) {
                names.add(key.substring(0, key.indexOf('(')));
            }
            Class<?> frozen = define(type, names, List.copyOf(setters.values()), getters);
            MethodHandle create = LOOKUP.findConstructor(frozen, MethodType.methodType(void.class))
                    .asType(MethodType.methodType(Object.class));
            return new Copier(create, fields.toArray(VarHandle[]::new));
        } catch (NoSuchMethodException | IllegalAccessException | SecurityException | LinkageError e) {
            // not the generated shape, a final setter, or a package not open to this module: never shared
            return null;
        }
    }

    private static Class<?> define(
            Class<?> type, List<String> names, List<MethodType> signatures, List<String> quantityGetters)
            throws IllegalAccessException {
        String binaryName =
                FrozenParts.class.getPackageName() + ".Frozen$" + type.getName().replace('.', '_');
        DEFINING.lock();
        try {
            try {
                return Class.forName(binaryName, false, FrozenParts.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                return LOOKUP.defineClass(
                        classFile(binaryName.replace('.', '/'), type, names, signatures, quantityGetters));
            }
        } finally {
            DEFINING.unlock();
        }
    }

    /**
     * The class file of {@code final class <name> extends <type> implements Frozen}: a public no-argument
     * constructor calling the superclass's, and each named setter as
     * {@code throw FrozenParts.refused(this, "<setter>")}, and each named getter of a Quantity as
     * {@code return (Quantity) FrozenParts.readable(super.<getter>())}. No branches, so no stack map frames.
     */
    static byte[] classFile(
            String internalName,
            Class<?> type,
            List<String> names,
            List<MethodType> signatures,
            List<String> quantityGetters) {
        ConstantPool pool = new ConstantPool();
        int thisClass = pool.classRef(internalName);
        String superName = type.getName().replace('.', '/');
        int superClass = pool.classRef(superName);
        int frozenInterface = pool.classRef(Frozen.class.getName().replace('.', '/'));
        int superInit = pool.methodRef(superName, "<init>", "()V");
        int refused = pool.methodRef(
                FrozenParts.class.getName().replace('.', '/'),
                "refused",
                "(Ljava/lang/Object;Ljava/lang/String;)Ljava/lang/UnsupportedOperationException;");
        int code = pool.utf8("Code");
        int init = pool.utf8("<init>");
        int voidDescriptor = pool.utf8("()V");
        String quantity = Quantity.class.getName().replace('.', '/');
        int quantityClass = pool.classRef(quantity);
        int readable = pool.methodRef(
                FrozenParts.class.getName().replace('.', '/'), "readable", "(Ljava/lang/Object;)Ljava/lang/Object;");
        int quantityDescriptor = pool.utf8("()L" + quantity + ";");
        int[][] getters = new int[quantityGetters.size()][];
        for (int i = 0; i < getters.length; i++) {
            getters[i] = new int[] {
                pool.utf8(quantityGetters.get(i)),
                pool.methodRef(superName, quantityGetters.get(i), "()L" + quantity + ";")
            };
        }
        int[][] methods = new int[names.size()][];
        for (int i = 0; i < names.size(); i++) {
            MethodType m = signatures.get(i);
            int slots = 1;
            for (Class<?> p : m.parameterArray()) {
                slots += p == long.class || p == double.class ? 2 : 1;
            }
            methods[i] = new int[] {
                pool.utf8(names.get(i)), pool.utf8(m.toMethodDescriptorString()), pool.string(names.get(i)), slots
            };
        }
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(512);
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(0xCAFEBABE);
            out.writeShort(0);
            out.writeShort(65); // Java 21
            pool.write(out);
            out.writeShort(0x0001 | 0x0010 | 0x0020); // public final super
            out.writeShort(thisClass);
            out.writeShort(superClass);
            out.writeShort(1);
            out.writeShort(frozenInterface);
            out.writeShort(0); // fields
            out.writeShort(1 + methods.length + getters.length);
            // public <init>() { super(); }
            out.writeShort(0x0001);
            out.writeShort(init);
            out.writeShort(voidDescriptor);
            writeCode(out, code, 1, 1, new byte[] {
                0x2A, (byte) 0xB7, (byte) (superInit >> 8), (byte) superInit, (byte) 0xB1
            });
            for (int[] m : methods) {
                // public <setter>(...) { throw FrozenParts.refused(this, "<setter>"); }
                out.writeShort(0x0001);
                out.writeShort(m[0]);
                out.writeShort(m[1]);
                writeCode(out, code, 2, m[3], new byte[] {
                    0x2A,
                    0x13,
                    (byte) (m[2] >> 8),
                    (byte) m[2],
                    (byte) 0xB8,
                    (byte) (refused >> 8),
                    (byte) refused,
                    (byte) 0xBF
                });
            }
            for (int[] g : getters) {
                // public Quantity <getter>() { return (Quantity) FrozenParts.readable(super.<getter>()); }
                out.writeShort(0x0001);
                out.writeShort(g[0]);
                out.writeShort(quantityDescriptor);
                writeCode(out, code, 1, 1, new byte[] {
                    0x2A,
                    (byte) 0xB7,
                    (byte) (g[1] >> 8),
                    (byte) g[1],
                    (byte) 0xB8,
                    (byte) (readable >> 8),
                    (byte) readable,
                    (byte) 0xC0,
                    (byte) (quantityClass >> 8),
                    (byte) quantityClass,
                    (byte) 0xB0
                });
            }
            out.writeShort(0); // class attributes
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void writeCode(DataOutputStream out, int codeName, int maxStack, int maxLocals, byte[] code)
            throws IOException {
        out.writeShort(1); // one attribute: Code
        out.writeShort(codeName);
        out.writeInt(12 + code.length);
        out.writeShort(maxStack);
        out.writeShort(maxLocals);
        out.writeInt(code.length);
        out.write(code);
        out.writeShort(0); // exception table
        out.writeShort(0); // attributes
    }

    /** A class file's constant pool: each entry once, numbered from 1. */
    private static final class ConstantPool {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final DataOutputStream out = new DataOutputStream(bytes);
        private final Map<String, Integer> indexes = new HashMap<>();
        private int next = 1;

        int utf8(String s) {
            return entry("U" + s, o -> {
                o.writeByte(1);
                o.writeUTF(s);
            });
        }

        int classRef(String internalName) {
            int name = utf8(internalName);
            return entry("C" + internalName, o -> {
                o.writeByte(7);
                o.writeShort(name);
            });
        }

        int string(String s) {
            int text = utf8(s);
            return entry("S" + s, o -> {
                o.writeByte(8);
                o.writeShort(text);
            });
        }

        int methodRef(String owner, String name, String descriptor) {
            int ownerClass = classRef(owner);
            int n = utf8(name);
            int d = utf8(descriptor);
            int nameAndType = entry("N" + name + " " + descriptor, o -> {
                o.writeByte(12);
                o.writeShort(n);
                o.writeShort(d);
            });
            return entry("M" + owner + "." + name + descriptor, o -> {
                o.writeByte(10);
                o.writeShort(ownerClass);
                o.writeShort(nameAndType);
            });
        }

        private int entry(String key, Writer writer) {
            Integer known = indexes.get(key);
            if (known != null) {
                return known;
            }
            try {
                writer.write(out);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            indexes.put(key, next);
            return next++;
        }

        void write(DataOutputStream to) throws IOException {
            out.flush();
            to.writeShort(next);
            bytes.writeTo(to);
        }

        @FunctionalInterface
        private interface Writer {
            void write(DataOutputStream out) throws IOException;
        }
    }
}
