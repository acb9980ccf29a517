package io.kubeloop.client.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import java.util.HashMap;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class DecodingTest {

    private static final JsonMapper PLAIN = JsonMapper.builder().build();

    /**
     * A pod as kube-apiserver serves it: labels, managedFields with a fieldsV1 tree, containers (one with a field the
     * model does not know, kept in additionalProperties even when the container is shared by its text), status.
     */
    static String pod(int i) {
        return """
            {"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-%1$d","namespace":"shop","uid":"u-%1$d",\
            "resourceVersion":"%2$d","creationTimestamp":"2026-11-30T10:00:00Z","labels":{"app":"web","tier":"fe"},\
            "annotations":{"note":"x"},"managedFields":[{"manager":"kubectl","operation":"Update","apiVersion":"v1",\
            "time":"2026-11-30T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},\
            "f:app":{},"f:tier":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},\
            "f:name":{}}}}}}]},"spec":{"containers":[{"name":"nginx","image":"nginx:1.27","args":["-g","daemon off;"],\
            "env":[{"name":"A","value":"1"},{"name":"P","valueFrom":{"fieldRef":{"apiVersion":"v1",\
            "fieldPath":"metadata.name"}}}],"ports":[{"containerPort":8080,"protocol":"TCP"}],\
            "resources":{"requests":{"cpu":"250m","memory":"256Mi"}},"futureField":{"kept":[1,"two"]}}],"tolerations":[{"key":"k","operator":"Exists"}],\
            "volumes":[],"nodeName":"node-%3$d","unknownField":{"kept":true}},\
            "status":{"phase":"Running","conditions":[{"type":"Ready","status":"True",\
            "lastTransitionTime":"2026-11-30T10:00:09Z"}],"podIP":"10.0.0.%3$d"}}""".formatted(i, 100 + i, i % 200);
    }

    /** pod(i) as a tree, as fabric8 writes it back: without the empty volumes list, maybe without managedFields. */
    private static JsonNode input(int i, boolean withoutManagedFields) {
        JsonNode tree = PLAIN.readTree(pod(i));
        ((tools.jackson.databind.node.ObjectNode) tree.get("spec")).remove("volumes");
        if (withoutManagedFields) {
            ((tools.jackson.databind.node.ObjectNode) tree.get("metadata")).remove("managedFields");
        }
        return tree;
    }

    static Stream<Decoding> decodings() {
        return Stream.of(Decoding.compact(), Decoding.standard());
    }

    @ParameterizedTest
    @MethodSource("decodings")
    void serializesToTheSameJsonAsStandardDecoding(Decoding decoding) throws Exception {
        for (int i = 0; i < 20; i++) {
            Pod standard = Decoding.standard().mapper().readValue(pod(i), Pod.class);
            Pod decoded = decoding.mapper().readValue(pod(i), Pod.class);
            assertThat(PLAIN.writeValueAsString(decoded)).isEqualTo(PLAIN.writeValueAsString(standard));
            assertThat(decoded).isEqualTo(standard);
            // and nothing of the input was lost on the way (unknown fields included; empty lists are left out)
            assertThat(PLAIN.readTree(PLAIN.writeValueAsString(decoded))).isEqualTo(input(i, false));
        }
    }

    @Test
    void aCompactListSerializesLikeAStandardOne() throws Exception {
        StringBuilder list =
                new StringBuilder("{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{},\"items\":[");
        for (int i = 0; i < 50; i++) {
            list.append(i == 0 ? "" : ",").append(pod(i));
        }
        String json = list.append("]}").toString();
        PodList compact = Decoding.compact().mapper().readValue(json, PodList.class);
        PodList standard = Decoding.standard().mapper().readValue(json, PodList.class);
        assertThat(PLAIN.writeValueAsString(compact)).isEqualTo(PLAIN.writeValueAsString(standard));
    }

    @Test
    void compactObjectsShareRecurringStringsAndParts() throws Exception {
        Pod a = Decoding.compact().mapper().readValue(pod(1), Pod.class);
        Pod b = Decoding.compact().mapper().readValue(pod(2), Pod.class);
        assertThat(a.getMetadata().getNamespace()).isSameAs(b.getMetadata().getNamespace());
        assertThat(a.getMetadata().getLabels().keySet().iterator().next())
                .isSameAs(b.getMetadata().getLabels().keySet().iterator().next());
        assertThat(a.getSpec().getContainers().get(0))
                .isSameAs(b.getSpec().getContainers().get(0));
        assertThat(a.getSpec().getTolerations()).isEqualTo(b.getSpec().getTolerations());
        assertThat(a.getMetadata().getManagedFields().get(0).getFieldsV1())
                .isSameAs(b.getMetadata().getManagedFields().get(0).getFieldsV1());
        assertThat(a.getMetadata().getAdditionalProperties())
                .isSameAs(b.getMetadata().getAdditionalProperties())
                .isEmpty();
        // what differs stays apart
        assertThat(a.getMetadata().getName()).isNotEqualTo(b.getMetadata().getName());
        assertThat(a.getSpec().getNodeName()).isNotEqualTo(b.getSpec().getNodeName());
    }

    /**
     * fabric8's equality is looser than the JSON: quantities compare by value ("1000m" equals "1", "1Gi" equals
     * "1073741824") and maps ignore their order. Parts that are equal that way but written differently must not be
     * shared, or an object would come back written as another object's part.
     */
    @Test
    void partsThatAreEqualButWrittenDifferentlyAreNotShared() throws Exception {
        String[][] variants = {
            {"\"cpu\":\"1\"", "\"cpu\":\"1000m\""},
            {"\"memory\":\"1Gi\"", "\"memory\":\"1073741824\""},
            {"\"cpu\":\"1\",\"memory\":\"1Gi\"", "\"memory\":\"1Gi\",\"cpu\":\"1\""}
        };
        for (String[] pair : variants) {
            String first = pod(1).replace("\"cpu\":\"250m\",\"memory\":\"256Mi\"", pair[0]);
            String second = pod(2).replace("\"cpu\":\"250m\",\"memory\":\"256Mi\"", pair[1]);
            for (String json : List.of(first, second, first, second)) {
                Pod decoded = Decoding.compact().mapper().readValue(json, Pod.class);
                assertThat(PLAIN.readTree(PLAIN.writeValueAsString(decoded)))
                        .as(pair[0] + " / " + pair[1])
                        .isEqualTo(PLAIN.readTree(json.replace("\"volumes\":[],", "")));
                assertThat(PLAIN.writeValueAsString(
                                decoded.getSpec().getContainers().get(0).getResources()))
                        .contains(json == first ? pair[0] : pair[1]);
            }
        }
    }

    @Test
    void stringsReadFromTheParsersBufferKeepEveryCharacter() throws Exception {
        List<String> values = List.of("", "é", "a\"b\\c\nd", "\u00e9t\u00e9 \ud83d\ude80", "x".repeat(5000), "é");
        for (int round = 0; round < 2; round++) { // the second round finds every value in its slot
            for (String value : values) {
                String json = pod(7).replace("\"note\":\"x\"", "\"note\":" + PLAIN.writeValueAsString(value));
                Pod decoded = Decoding.compact().mapper().readValue(json, Pod.class);
                assertThat(decoded.getMetadata().getAnnotations().get("note")).isEqualTo(value);
            }
        }
        Pod a = Decoding.compact().mapper().readValue(pod(1), Pod.class);
        Pod b = Decoding.compact().mapper().readValue(pod(2), Pod.class);
        assertThat(a.getSpec().getContainers().get(0).getImage())
                .isSameAs(b.getSpec().getContainers().get(0).getImage());
        assertThat(a.getStatus().getPhase()).isSameAs(b.getStatus().getPhase());
    }

    @Test
    void compactObjectsRefuseMutationOfTheirCollections() throws Exception {
        Pod pod = Decoding.compact().mapper().readValue(pod(3), Pod.class);
        assertThatThrownBy(() -> pod.getSpec().getContainers().add(null))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> pod.getSpec().getVolumes().add(null))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> pod.getMetadata().setAdditionalProperty("x", 1))
                .isInstanceOf(UnsupportedOperationException.class);
        // an absent list property is the shared empty list, not a fresh ArrayList
        assertThat(pod.getMetadata().getFinalizers()).isEmpty();
        assertThatThrownBy(() -> pod.getMetadata().getFinalizers().add("f"))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void standardObjectsStayOrdinaryAndMutable() throws Exception {
        Pod pod = Decoding.standard().mapper().readValue(pod(4), Pod.class);
        pod.getSpec().getContainers().add(pod.getSpec().getContainers().get(0));
        pod.getMetadata().getFinalizers().add("f");
        pod.getMetadata().setAdditionalProperty("x", 1);
        Pod other = Decoding.standard().mapper().readValue(pod(5), Pod.class);
        assertThat(other.getSpec().getContainers().get(0))
                .isNotSameAs(pod.getSpec().getContainers().get(0));
        assertThat(other.getSpec().getContainers()).hasSize(1);
    }

    @Test
    void standardDecodingEqualsPlainJacksonDecodingIncludingManagedFields() throws Exception {
        for (int i = 0; i < 5; i++) {
            Pod plain = PLAIN.readValue(pod(i), Pod.class);
            Pod standard = Decoding.standard().mapper().readValue(pod(i), Pod.class);
            assertThat(PLAIN.writeValueAsString(standard)).isEqualTo(PLAIN.writeValueAsString(plain));
            assertThat(standard).isEqualTo(plain);
            assertThat(plain).isEqualTo(standard);
            assertThat(standard.hashCode()).isEqualTo(plain.hashCode());
        }
    }

    @Test
    void standardFieldsV1IsAnOrdinaryMutableMapOnceUsed() throws Exception {
        java.util.Map<String, Object> tree = Decoding.standard()
                .mapper()
                .readValue(pod(1), Pod.class)
                .getMetadata()
                .getManagedFields()
                .get(0)
                .getFieldsV1()
                .getAdditionalProperties();
        java.util.Map<String, Object> expected = PLAIN.readValue(pod(1), Pod.class)
                .getMetadata()
                .getManagedFields()
                .get(0)
                .getFieldsV1()
                .getAdditionalProperties();
        assertThat(tree.toString()).isEqualTo(expected.toString());
        assertThat(tree.keySet()).containsExactly("f:metadata", "f:spec");
        @SuppressWarnings("unchecked")
        java.util.Map<String, Object> containers = (java.util.Map<String, Object>)
                ((java.util.Map<String, Object>) tree.get("f:spec")).get("f:containers");
        assertThat(containers).containsOnlyKeys("k:{\"name\":\"nginx\"}").isInstanceOf(java.util.LinkedHashMap.class);
        tree.put("f:status", new java.util.LinkedHashMap<>());
        tree.remove("f:metadata");
        assertThat(tree.keySet()).containsExactly("f:spec", "f:status");
        assertThat(PLAIN.writeValueAsString(tree))
                .isEqualTo("{\"f:spec\":" + PLAIN.writeValueAsString(expected.get("f:spec")) + ",\"f:status\":{}}");
    }

    @Test
    void standardFieldsV1CanBeChangedBeforeItWasEverRead() throws Exception {
        io.fabric8.kubernetes.api.model.FieldsV1 fields = Decoding.standard()
                .mapper()
                .readValue(pod(2), Pod.class)
                .getMetadata()
                .getManagedFields()
                .get(0)
                .getFieldsV1();
        fields.setAdditionalProperty("f:extra", java.util.Map.of());
        assertThat(fields.getAdditionalProperties().keySet()).containsExactly("f:metadata", "f:spec", "f:extra");
        tools.jackson.databind.node.ObjectNode withEmptyTree =
                (tools.jackson.databind.node.ObjectNode) PLAIN.readTree(pod(2));
        ((tools.jackson.databind.node.ObjectNode)
                        withEmptyTree.get("metadata").get("managedFields").get(0))
                .putObject("fieldsV1");
        Pod empty = Decoding.standard().mapper().treeToValue(withEmptyTree, Pod.class);
        assertThat(empty.getMetadata().getManagedFields().get(0).getFieldsV1().getAdditionalProperties())
                .isEmpty();
    }

    @Test
    void standardFieldsV1IsParsedOnceWhenManyThreadsReadItFirst() throws Exception {
        Pod plain = PLAIN.readValue(pod(3), Pod.class);
        for (int round = 0; round < 20; round++) {
            java.util.Map<String, Object> tree = Decoding.standard()
                    .mapper()
                    .readValue(pod(3), Pod.class)
                    .getMetadata()
                    .getManagedFields()
                    .get(0)
                    .getFieldsV1()
                    .getAdditionalProperties();
            java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(4);
            List<java.util.concurrent.Future<Object>> seen = new java.util.ArrayList<>();
            try (var threads = java.util.concurrent.Executors.newFixedThreadPool(4)) {
                for (int t = 0; t < 4; t++) {
                    seen.add(threads.submit(() -> {
                        start.await();
                        return tree.get("f:spec");
                    }));
                }
                for (var f : seen) {
                    assertThat(f.get(10, java.util.concurrent.TimeUnit.SECONDS))
                            .isSameAs(seen.get(0).get());
                }
            }
            assertThat(tree)
                    .isEqualTo(plain.getMetadata()
                            .getManagedFields()
                            .get(0)
                            .getFieldsV1()
                            .getAdditionalProperties());
        }
    }

    @ParameterizedTest
    @MethodSource("decodings")
    void aBodyCutShortInsideACapturedValueLeavesLaterDecodingIntact(Decoding decoding) throws Exception {
        String whole = pod(8);
        for (String cut : List.of(
                whole.substring(0, whole.indexOf("\"f:tier\"")), // inside fieldsV1
                whole.substring(0, whole.indexOf("\"daemon off;\"")))) { // inside a container
            assertThatThrownBy(() -> decoding.mapper().readValue(cut, Pod.class))
                    .isInstanceOf(tools.jackson.core.JacksonException.class);
            Pod after = decoding.mapper().readValue(pod(9), Pod.class);
            assertThat(PLAIN.writeValueAsString(after))
                    .isEqualTo(PLAIN.writeValueAsString(PLAIN.readValue(pod(9), Pod.class)));
        }
    }

    @Test
    void standardFieldsV1SerializesAsAPlainMap() throws Exception {
        java.util.Map<String, Object> tree = Decoding.standard()
                .mapper()
                .readValue(pod(4), Pod.class)
                .getMetadata()
                .getManagedFields()
                .get(0)
                .getFieldsV1()
                .getAdditionalProperties();
        var bytes = new java.io.ByteArrayOutputStream();
        try (var out = new java.io.ObjectOutputStream(bytes)) {
            out.writeObject(tree);
        }
        try (var in = new java.io.ObjectInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
            Object back = in.readObject();
            assertThat(back).isInstanceOf(java.util.LinkedHashMap.class).isEqualTo(tree);
        }
    }

    @ParameterizedTest
    @MethodSource("decodings")
    void withoutManagedFieldsSkipsThemAndKeepsEverythingElse(Decoding decoding) throws Exception {
        Decoding skipping = decoding.withoutManagedFields();
        assertThat(skipping.skipsManagedFields()).isTrue();
        assertThat(skipping.isCompact()).isEqualTo(decoding.isCompact());
        Pod pod = skipping.mapper().readValue(pod(6), Pod.class);
        assertThat(pod.getMetadata().getManagedFields()).isEmpty();
        assertThat(pod.getMetadata().getAdditionalProperties()).doesNotContainKey("managedFields");
        assertThat(PLAIN.readTree(PLAIN.writeValueAsString(pod))).isEqualTo(input(6, true));
    }

    @Test
    void genericResourcesRoundTrip() throws Exception {
        GenericKubernetesResource compact =
                Decoding.compact().mapper().readValue(pod(7), GenericKubernetesResource.class);
        assertThat(PLAIN.readTree(PLAIN.writeValueAsString(compact))).isEqualTo(PLAIN.readTree(pod(7)));
        assertThat(PLAIN.writeValueAsString(compact))
                .isEqualTo(PLAIN.writeValueAsString(
                        Decoding.standard().mapper().readValue(pod(7), GenericKubernetesResource.class)));
    }

    @Test
    void variantsAreBuiltOnceAndCompare() {
        assertThat(Decoding.compact()).isSameAs(Decoding.compact());
        assertThat(Decoding.compact().withoutManagedFields())
                .isSameAs(Decoding.compact().withoutManagedFields());
        assertThat(Decoding.standard()).isNotEqualTo(Decoding.compact());
        assertThat(Decoding.standard().toString()).isEqualTo("Decoding{standard}");
        assertThat(new HashMap<>(java.util.Map.of(Decoding.compact(), 1))).containsKey(Decoding.compact());
        assertThat(List.of(Decoding.standard().isCompact(), Decoding.standard().skipsManagedFields()))
                .containsExactly(false, false);
    }
}
