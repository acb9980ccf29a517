package io.kubeloop.client.codec;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.kubeloop.client.internal.JacksonVersionCheck;
import java.util.Objects;
import java.util.Set;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;

/**
 * How a client turns JSON into model objects. {@link #standard()} is what every client does by default: ordinary,
 * mutable fabric8 objects. Two opt-in variants are meant for caches (informers), whose objects are shared and
 * never mutated:
 *
 * <ul>
 *   <li>{@link #compact()}: the same objects, in less heap — recurring strings stored once, empty maps and lists
 *       shared, lists immutable and exactly sized, identical parts (managedFields' {@code fieldsV1}, containers,
 *       volumes, tolerations, conditions ...) shared between objects. They serialize to the same JSON and are
 *       {@code equals} to standard ones. Like every cached object they must not be mutated; copy one (for example
 *       {@code new PodBuilder(pod).build()}, which makes ordinary mutable objects) and change the copy.</li>
 *   <li>{@link #withoutManagedFields()}: {@code metadata.managedFields} is skipped while parsing, never built: the
 *       same result as an informer transform that strips managedFields, without paying to decode them.</li>
 * </ul>
 *
 * <pre>{@code
 * ResourceClient<Pod> pods = client.resources(Pod.class).inAnyNamespace()
 *         .withDecoding(Decoding.compact().withoutManagedFields());   // for an informer's list and watch
 * }</pre>
 *
 * <p><b>The rule for compact objects: a mutation through an object never changes another object or a later
 * decode.</b> A part shared between objects (and with every later decode of the same JSON text) is frozen: it is an
 * instance of a subclass of its model class (made at run time, once per class) whose every setter, and
 * {@code setAdditionalProperty}, throws {@link UnsupportedOperationException} naming the part and this rule; its
 * lists and maps are unmodifiable, everything reachable from it is frozen too, and a {@code Quantity} in it is handed
 * out as a fresh copy on each read. Only parts that can be frozen are shared. What belongs to one object alone (the
 * object, its {@code metadata}, {@code spec}, {@code status}, their non-empty maps) can still be changed as before,
 * and the change stays in that object; its lists and empty maps throw, as they always did. A frozen part is
 * {@code instanceof} its model class, but {@code getClass()} is not the model class itself.
 *
 * <p>Instances are immutable and thread-safe; the compact variants of one JVM share one table of strings, one
 * of parts and one of managedFields trees, the last two by their JSON text (bounded: 65,536 strings, 8,192 parts
 * and 16,384 trees; see {@code InternTable} and {@code TextParts}).
 *
 * <p><b>What every decoding does to start fast, and what guards it.</b> Three package-private parts sit under
 * every decoding, the default one included, and tie it to Jackson's and fabric8's internals: {@code DeferredBeans}
 * (a model class's deserializer is built when a value of it is first read, not when Pod's graph is resolved),
 * {@code ModelBeans} with {@code ModelBeanDeserializer} (fabric8's generated classes read from their fields and
 * setters, without Jackson's method introspection, which loads every class's builder and fluent) and
 * {@code RawInput} (parts and managedFields trees keep the bytes they arrived in). Measured on a cold informer
 * start, a fresh JVM listing and watching pods until synced, 5 alternating runs each with and without the three
 * (kubeloop-bench/results/2026-12-02-startup): they save a third of the CPU of a 1,000-pod start (standard
 * 4.8 → 3.2 CPU-s, compact 4.4 → 3.0) and a quarter of a 10,000-pod one (standard 8.1 → 6.0, compact 7.1 →
 * 5.2), which is why they are on the default path. Each is checked against plain Jackson, so a Jackson or
 * fabric8 upgrade that breaks an assumption fails a test instead of decoding differently: {@code ModelBeansTest}
 * (every model class of six fabric8 model modules that is taken decodes, with every property, unknown properties
 * and nulls, to what Jackson's own bean deserializer gives, with the same errors and paths; and the generated
 * classes are still taken, so the gain is not lost silently), {@code DeferredBeansTest} (every reachable model
 * class, all properties set or all null, decodes as with Jackson's eager resolution), {@code RawInputTest} (the
 * kept text is exactly each value's bytes however the input is cut into reads) and {@code DecodingTest} (every
 * decoding against plain Jackson, end to end).
 */
public final class Decoding {

    private static final InternTable<String> STRINGS = new InternTable<>(1 << 16);
    private static final TextParts VALUES = new TextParts(1 << 13);
    private static final TextParts TREES = new TextParts(1 << 14);
    /** Indexed by (compact ? 2 : 0) + (skipManagedFields ? 1 : 0); each builds its mapper once, when first asked. */
    private static final Decoding[] ALL = {
        new Decoding(false, false), new Decoding(false, true), new Decoding(true, false), new Decoding(true, true)
    };

    private final boolean compact;
    private final boolean skipManagedFields;
    /** Built by the first {@link #mapper()}: most programs use one or two of the four. */
    private volatile JsonMapper mapper;

    private Decoding(boolean compact, boolean skipManagedFields) {
        this.compact = compact;
        this.skipManagedFields = skipManagedFields;
    }

    private JsonMapper build() {
        JacksonVersionCheck.verify(); // a clear message, not a NoSuchMethodError from a mixed Jackson
        // Every parser reads through a RawInput, so parts keep the text they arrived in (see JsonText).
        JsonMapper.Builder builder = JsonMapper.builder(
                        JsonFactory.builder().inputDecorator(RawInput.DECORATOR).build())
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                // A reader finds its deserializer when it first reads, not when it is made: every ResourceClient
                // (each inNamespace, withDecoding, ...) makes readers, and building a deserializer graph such as
                // Pod's costs a cold JVM a good fraction of a second, for readers that may never read.
                .disable(DeserializationFeature.EAGER_DESERIALIZER_FETCH)
                // Likewise each model class's deserializer is built when a value of it is first read. FieldsV1,
                // which the modules below decode themselves, is left to them (and Jackson asks the modules
                // registered later first).
                .addModule(DeferredBeans.module(Set.of(FieldsV1.class)))
                // ... and made from the model class's fields, without Jackson's introspection of its methods.
                .addModule(ModelBeans.module(Set.of(FieldsV1.class)));
        if (compact) {
            builder.addModule(CompactModule.create(STRINGS, VALUES, TREES));
        } else {
            builder.addModule(
                    new SimpleModule("kubeloop-lazy-fieldsv1").addDeserializer(FieldsV1.class, new LazyFieldsV1()));
        }
        if (skipManagedFields) {
            builder.addMixIn(ObjectMeta.class, SkipManagedFields.class);
        }
        return builder.build();
    }

    /**
     * Ordinary mutable fabric8 objects, unknown fields kept in {@code additionalProperties}: the default, and the
     * client's one mapper for everything else it reads and writes. One thing is done lazily: managedFields'
     * {@code fieldsV1} trees are kept as their JSON text and parsed into the usual nested maps when first used (read,
     * changed, compared or written). Nothing observable differs, but most objects' trees are never looked at, and
     * building them was most of the cost of decoding a pod.
     */
    public static Decoding standard() {
        return ALL[0];
    }

    /**
     * Compact objects for a cache, whose shared parts refuse every change (see the class comment for the rule).
     */
    public static Decoding compact() {
        return ALL[2];
    }

    /** This decoding, also skipping {@code metadata.managedFields}. */
    public Decoding withoutManagedFields() {
        return ALL[(compact ? 2 : 0) + 1];
    }

    /** Whether objects are compacted (their shared parts refuse mutation; see the class comment). */
    public boolean isCompact() {
        return compact;
    }

    /** Whether {@code metadata.managedFields} is skipped. */
    public boolean skipsManagedFields() {
        return skipManagedFields;
    }

    /**
     * The mapper that reads this way. Use it for reading only: with {@link #withoutManagedFields()} it would also
     * leave managedFields out of what it writes.
     */
    public JsonMapper mapper() {
        JsonMapper m = mapper;
        if (m == null) {
            synchronized (this) {
                m = mapper;
                if (m == null) {
                    m = build();
                    mapper = m;
                }
            }
        }
        return m;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Decoding d && d.compact == compact && d.skipManagedFields == skipManagedFields;
    }

    @Override
    public int hashCode() {
        return Objects.hash(compact, skipManagedFields);
    }

    @Override
    public String toString() {
        return "Decoding{" + (compact ? "compact" : "standard") + (skipManagedFields ? ", withoutManagedFields" : "")
                + "}";
    }

    /** Mix-in: {@code managedFields} is skipped like an unknown field, never bound. */
    @JsonIgnoreProperties(
            value = {"managedFields"},
            ignoreUnknown = true)
    private abstract static class SkipManagedFields {}
}
