package io.kubeloop.client.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 15 §3: a part {@link Decoding#compact()} shares between objects (and with later decodes of the same text)
 * refuses every change, so a mutation through one object never shows in another. Covers every shared class
 * ({@link CompactModule#SHARED} and managedFields' FieldsV1).
 */
class CompactMutationTest {

    private static final JsonMapper PLAIN = JsonMapper.builder().build();

    /** A pod holding at least one instance of every shared class; {@code %1$d} names the pod. */
    private static String pod(int i) {
        return """
            {"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-%1$d","namespace":"shop","uid":"u-%1$d",\
            "labels":{"app":"web"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-rs",\
            "uid":"rs-1","controller":true,"blockOwnerDeletion":true}],\
            "managedFields":[{"manager":"kubectl","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1",\
            "fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}}]},\
            "spec":{"containers":[{"name":"nginx","image":"nginx:1.27","args":["-g","daemon off;"],\
            "env":[{"name":"A","value":"1"},{"name":"P","valueFrom":{"fieldRef":{"apiVersion":"v1",\
            "fieldPath":"metadata.name"}}},{"name":"S","valueFrom":{"secretKeyRef":{"name":"s","key":"k"}}}],\
            "ports":[{"containerPort":8080,"protocol":"TCP"}],\
            "resources":{"requests":{"cpu":"250m","memory":"256Mi"},"limits":{"cpu":"1"}},\
            "livenessProbe":{"httpGet":{"path":"/healthz","port":8080},"periodSeconds":10},\
            "readinessProbe":{"httpGet":{"path":"/ready","port":"http"}},\
            "volumeMounts":[{"name":"config","mountPath":"/etc/config"}],\
            "securityContext":{"runAsNonRoot":true,"capabilities":{"drop":["ALL"]}},\
            "futureField":{"kept":[1,"two"]}}],\
            "volumes":[{"name":"config","configMap":{"name":"web-config","items":[{"key":"a","path":"a.conf"}]}},\
            {"name":"token","projected":{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}}]}},\
            {"name":"scratch","emptyDir":{"sizeLimit":"1Gi"}}],\
            "tolerations":[{"key":"k","operator":"Exists","effect":"NoSchedule"}],\
            "securityContext":{"runAsUser":1000,"fsGroup":2000},\
            "affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":\
            [{"matchExpressions":[{"key":"zone","operator":"In","values":["a","b"]}]}]}}},\
            "nodeName":"node-%1$d"},\
            "status":{"phase":"Running","conditions":[{"type":"Ready","status":"True",\
            "lastTransitionTime":"2026-11-30T10:00:09Z"}],"containerStatuses":[{"name":"nginx","ready":true,\
            "restartCount":0,"image":"nginx:1.27","imageID":"sha256:abc","containerID":"containerd://%1$d",\
            "state":{"running":{"startedAt":"2026-11-30T10:00:05Z"}}}],"podIP":"10.0.0.%1$d"}}""".formatted(i);
    }

    private static Pod compact(int i) {
        return Decoding.compact().mapper().readValue(pod(i), Pod.class);
    }

    private static Pod standard(int i) {
        return Decoding.standard().mapper().readValue(pod(i), Pod.class);
    }

    /** Every shared class: the compact module's, and FieldsV1 (managedFields' trees). */
    static Stream<String> sharedClasses() {
        return Stream.concat(CompactModule.SHARED.stream(), Stream.of(FieldsV1.class.getName()))
                .sorted();
    }

    @Test
    void theIssuesScenarioIsRefusedAndChangesNoOtherPodNorALaterDecode() {
        Pod first = compact(1);
        Pod second = compact(2);
        Container shared = first.getSpec().getContainers().get(0);
        assertThat(second.getSpec().getContainers().get(0)).isSameAs(shared);

        assertThatThrownBy(() -> shared.setImage("evil:2"))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("Container \"nginx\"")
                .hasMessageContaining("setImage")
                .hasMessageContaining("Decoding.compact()")
                .hasMessageContaining("new PodBuilder(pod).build()");

        assertThat(second.getSpec().getContainers().get(0).getImage()).isEqualTo("nginx:1.27");
        assertThat(compact(3).getSpec().getContainers().get(0).getImage()).isEqualTo("nginx:1.27");
    }

    @ParameterizedTest
    @MethodSource("sharedClasses")
    void everySharedPartRefusesEveryChangeAndStaysAsDecoded(String className) throws Exception {
        Pod first = compact(11);
        Pod second = compact(12);
        String secondJson = PLAIN.writeValueAsString(second);
        List<Object> firstParts = instancesOf(first, className);
        List<Object> secondParts = instancesOf(second, className);
        assertThat(firstParts).as("the test pod holds a %s", className).isNotEmpty();
        // the same text in two objects is one instance
        assertThat(secondParts).hasSameSizeAs(firstParts);
        for (int i = 0; i < firstParts.size(); i++) {
            assertThat(secondParts.get(i)).isSameAs(firstParts.get(i));
        }

        for (Object part : firstParts) {
            List<Method> setters = setters(part.getClass());
            assertThat(setters).as("setters of %s", className).isNotEmpty();
            for (Method setter : setters) {
                Object[] args = new Object[setter.getParameterCount()];
                if (args.length == 2) {
                    args[0] = "injected";
                }
                assertThatThrownBy(() -> invoke(setter, part, args))
                        .as("%s.%s", className, setter.getName())
                        .isInstanceOf(UnsupportedOperationException.class)
                        .hasMessageContaining(Class.forName(className).getSimpleName())
                        .hasMessageContaining(setter.getName())
                        .hasMessageContaining("Decoding.compact()");
            }
            // and what its getters return cannot be changed either
            for (Object value : gettersValues(part)) {
                if (value instanceof List<?> list) {
                    assertThatThrownBy(() -> addTo(list)).isInstanceOf(UnsupportedOperationException.class);
                } else if (value instanceof Map<?, ?> map) {
                    assertThatThrownBy(() -> putTo(map)).isInstanceOf(UnsupportedOperationException.class);
                } else if (value instanceof Quantity q) {
                    q.setAmount("999"); // a reader's own copy: changes nothing shared
                }
            }
        }

        assertThat(PLAIN.writeValueAsString(second)).isEqualTo(secondJson);
        assertThat(PLAIN.writeValueAsString(compact(13))).isEqualTo(PLAIN.writeValueAsString(standard(13)));
        assertThat(compact(13)).isEqualTo(standard(13));
        assertThat(standard(13)).isEqualTo(compact(13));
    }

    @Test
    void quantitiesInSharedPartsAreHandedOutAsCopies() {
        Pod first = compact(21);
        Pod second = compact(22);
        Container c = first.getSpec().getContainers().get(0);
        Quantity cpu = c.getResources().getRequests().get("cpu");
        cpu.setAmount("64");
        c.getResources().getLimits().values().forEach(q -> q.setAmount("64"));
        Quantity size = first.getSpec().getVolumes().get(2).getEmptyDir().getSizeLimit();
        size.setAmount("1");
        size.setFormat("Ti");

        assertThat(first.getSpec()
                        .getContainers()
                        .get(0)
                        .getResources()
                        .getRequests()
                        .get("cpu"))
                .isEqualTo(new Quantity("250m"));
        assertThat(second.getSpec().getContainers().get(0).getResources().getLimits())
                .isEqualTo(Map.of("cpu", new Quantity("1")));
        assertThat(second.getSpec().getVolumes().get(2).getEmptyDir().getSizeLimit())
                .isEqualTo(new Quantity("1Gi"));
        assertThat(compact(23)).isEqualTo(standard(23));
    }

    @Test
    void collectionsOfSharedPartsNameTheRuleWhenChanged() {
        Container c = compact(31).getSpec().getContainers().get(0);
        assertThatThrownBy(() -> c.getResources().getRequests().put("cpu", new Quantity("2")))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("Decoding.compact()");
        assertThatThrownBy(() -> c.getAdditionalProperties().put("x", 1))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("Decoding.compact()");
        assertThatThrownBy(() -> c.getAdditionalProperties().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() ->
                        c.getResources().getRequests().entrySet().iterator().remove())
                .isInstanceOf(UnsupportedOperationException.class);
        @SuppressWarnings("unchecked")
        Map<String, Object> future =
                (Map<String, Object>) c.getAdditionalProperties().get("futureField");
        assertThatThrownBy(() -> future.put("kept", "changed")).isInstanceOf(UnsupportedOperationException.class);
        @SuppressWarnings("unchecked")
        List<Object> kept = (List<Object>) future.get("kept");
        assertThatThrownBy(() -> kept.set(0, 2)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aCopyIsOrdinaryAndMutableAndTheObjectItsOwnPartsStayMutable() {
        Pod cached = compact(41);
        Pod other = compact(42);
        Pod copy = new PodBuilder(cached).build();
        assertThat(copy).isEqualTo(cached);
        Container mine = copy.getSpec().getContainers().get(0);
        assertThat(mine.getClass()).isEqualTo(Container.class);
        mine.setImage("nginx:1.28");
        mine.getResources().getRequests().put("cpu", new Quantity("2"));
        mine.getEnv().add(new io.fabric8.kubernetes.api.model.EnvVar("B", "2", null));
        assertThat(cached.getSpec().getContainers().get(0).getImage()).isEqualTo("nginx:1.27");
        assertThat(other.getSpec().getContainers().get(0).getEnv()).hasSize(3);

        // A part of one object only (its metadata, spec, status) changes only that object, as before.
        cached.getSpec().setNodeName("elsewhere");
        cached.getMetadata().getLabels().put("app", "changed");
        assertThat(other.getSpec().getNodeName()).isEqualTo("node-42");
        assertThat(other.getMetadata().getLabels()).containsEntry("app", "web");
        assertThat(compact(43).getMetadata().getLabels()).containsEntry("app", "web");
    }

    @Test
    void standardObjectsAreNeitherSharedNorFrozen() {
        Pod a = standard(51);
        Pod b = standard(52);
        assertThat(a.getSpec().getContainers().get(0))
                .isNotSameAs(b.getSpec().getContainers().get(0));
        a.getSpec().getContainers().get(0).setImage("evil:2");
        assertThat(b.getSpec().getContainers().get(0).getImage()).isEqualTo("nginx:1.27");
    }

    /** The frozen class of every model class a shared part may hold overrides every public setter fabric8 has. */
    @Test
    void everyClassReachableFromASharedPartHasEverySetterOverridden() throws Exception {
        Set<Class<?>> reachable = new java.util.LinkedHashSet<>();
        ArrayDeque<Class<?>> todo = new ArrayDeque<>();
        for (String name : sharedClasses().toList()) {
            todo.add(Class.forName(name));
        }
        while (!todo.isEmpty()) {
            Class<?> type = todo.poll();
            if (!reachable.add(type)) {
                continue;
            }
            for (Class<?> level = type; level != Object.class; level = level.getSuperclass()) {
                for (Field f : level.getDeclaredFields()) {
                    if (!Modifier.isStatic(f.getModifiers())) {
                        modelTypes(f.getGenericType(), todo);
                    }
                }
            }
        }
        assertThat(reachable).hasSizeGreaterThan(100); // every volume source, probe handler, affinity term, ...
        Set<String> notFrozen = new TreeSet<>();
        for (Class<?> type : reachable) {
            if (type == Quantity.class) {
                assertThat(FrozenParts.canFreeze(type)).isFalse(); // handed out as copies instead
                continue;
            }
            if (!FrozenParts.canFreeze(type)) {
                notFrozen.add(type.getName());
                continue;
            }
            Object frozen = FrozenParts.freeze(type.getConstructor().newInstance());
            assertThat(frozen)
                    .isInstanceOf(type)
                    .isInstanceOf(FrozenParts.Frozen.class)
                    .isEqualTo(type.getConstructor().newInstance());
            for (Method m : frozen.getClass().getMethods()) {
                if (m.getName().startsWith("set") && !Modifier.isStatic(m.getModifiers())) {
                    assertThat(m.getDeclaringClass())
                            .as("%s.%s", type.getName(), m.getName())
                            .isEqualTo(frozen.getClass());
                }
            }
        }
        assertThat(notFrozen)
                .as("model classes a shared part may hold but that cannot be frozen")
                .isEmpty();
    }

    private static void modelTypes(Type type, Collection<Class<?>> into) {
        if (type instanceof ParameterizedType p) {
            for (Type arg : p.getActualTypeArguments()) {
                modelTypes(arg, into);
            }
        } else if (type instanceof Class<?> c
                && c.getName().startsWith("io.fabric8.")
                && !c.isEnum()
                && !c.isInterface()
                && !Modifier.isAbstract(c.getModifiers())) {
            into.add(c);
        }
    }

    /** Every instance of the class in the object graph, in a stable order (by reflection over fields). */
    private static List<Object> instancesOf(Object root, String className) throws Exception {
        List<Object> found = new ArrayList<>();
        Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        walk(root, className, found, seen);
        return found;
    }

    private static void walk(Object value, String className, List<Object> found, Set<Object> seen) throws Exception {
        if (value == null || !seen.add(value)) {
            return;
        }
        if (value instanceof Collection<?> c) {
            for (Object item : c) {
                walk(item, className, found, seen);
            }
            return;
        }
        if (value instanceof Map<?, ?> m) {
            for (Object item : m.values()) {
                walk(item, className, found, seen);
            }
            return;
        }
        Class<?> model = value.getClass();
        while (model != null && model.getName().startsWith("io.kubeloop.")) {
            model = model.getSuperclass(); // a frozen subclass: look at its model class
        }
        if (model == null || !model.getName().startsWith("io.fabric8.")) {
            return;
        }
        if (model.getName().equals(className)) {
            found.add(value);
        }
        for (Class<?> level = model; level != Object.class; level = level.getSuperclass()) {
            for (Field f : level.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers())) {
                    f.setAccessible(true);
                    walk(f.get(value), className, found, seen);
                }
            }
        }
    }

    private static List<Method> setters(Class<?> type) {
        List<Method> setters = new ArrayList<>();
        for (Method m : type.getMethods()) {
            if (m.getName().startsWith("set") && !Modifier.isStatic(m.getModifiers())) {
                setters.add(m);
            }
        }
        return setters;
    }

    private static List<Object> gettersValues(Object part) throws Exception {
        List<Object> values = new ArrayList<>();
        for (Method m : part.getClass().getMethods()) {
            if (m.getName().startsWith("get")
                    && m.getParameterCount() == 0
                    && !Modifier.isStatic(m.getModifiers())
                    && m.getDeclaringClass() != Object.class) {
                values.add(m.invoke(part));
            }
        }
        return values;
    }

    private static void invoke(Method m, Object target, Object[] args) throws Throwable {
        try {
            m.invoke(target, args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @SuppressWarnings("unchecked")
    private static void addTo(List<?> list) {
        ((List<Object>) list).add(null);
    }

    @SuppressWarnings("unchecked")
    private static void putTo(Map<?, ?> map) {
        ((Map<Object, Object>) map).put("injected", "x");
    }
}
