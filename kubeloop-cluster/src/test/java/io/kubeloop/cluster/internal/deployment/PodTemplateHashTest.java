package io.kubeloop.cluster.internal.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.kubeloop.client.codec.Decoding;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pod-template-hash: kube's shape (FNV-32a, collisionCount, SafeEncodeString), stable and sensitive. */
class PodTemplateHashTest {

    private static PodTemplateSpec template(Map<String, String> labels, String image) {
        return new PodTemplateSpecBuilder()
                .withNewMetadata()
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("nginx")
                .withImage(image)
                .endContainer()
                .endSpec()
                .build();
    }

    @Test
    void safeEncodeMapsDigitsAsApimachinery() {
        // '0'..'9' are bytes 48..57; 48 % 27 = 21 → "bcdfghjklmnpqrstvwxz2456789"[21] = '4', and so on.
        assertThat(PodTemplateHash.safeEncode("0123456789")).isEqualTo("456789bcdf");
    }

    @Test
    void theSameTemplateHashesTheSameWhateverTheOrderOfItsMapsOrItsDecoding() throws Exception {
        Map<String, String> ab = new LinkedHashMap<>();
        ab.put("a", "1");
        ab.put("b", "2");
        Map<String, String> ba = new LinkedHashMap<>();
        ba.put("b", "2");
        ba.put("a", "1");
        PodTemplateSpec one = template(ab, "nginx:1.25");
        PodTemplateSpec decoded = Decoding.standard()
                .mapper()
                .readValue(
                        "{\"spec\":{\"containers\":[{\"image\":\"nginx:1.25\",\"name\":\"nginx\",\"env\":[]}]},"
                                + "\"metadata\":{\"labels\":{\"b\":\"2\",\"a\":\"1\"}}}",
                        PodTemplateSpec.class);

        String hash = PodTemplateHash.compute(one, null);
        assertThat(hash).matches("[4-9bcdf]{1,10}");
        assertThat(PodTemplateHash.compute(template(ba, "nginx:1.25"), null)).isEqualTo(hash);
        assertThat(PodTemplateHash.compute(decoded, null)).isEqualTo(hash);
        assertThat(PodTemplateHash.equalIgnoringHash(one, decoded)).isTrue();
    }

    @Test
    void anyChangeOrACollisionCountGivesAnotherHash() {
        PodTemplateSpec t = template(Map.of("app", "web"), "nginx:1.25");
        String hash = PodTemplateHash.compute(t, null);
        assertThat(PodTemplateHash.compute(template(Map.of("app", "web"), "nginx:1.27"), null))
                .isNotEqualTo(hash);
        assertThat(PodTemplateHash.compute(template(Map.of("app", "web2"), "nginx:1.25"), null))
                .isNotEqualTo(hash);
        assertThat(PodTemplateHash.compute(t, 0)).isNotEqualTo(hash); // 8 zero bytes are still hashed
        assertThat(PodTemplateHash.compute(t, 1)).isNotEqualTo(PodTemplateHash.compute(t, 0));
    }

    @Test
    void equalityIgnoresOnlyThePodTemplateHashLabel() {
        PodTemplateSpec plain = template(Map.of("app", "web"), "nginx:1.25");
        PodTemplateSpec hashed = template(Map.of("app", "web", "pod-template-hash", "5d4f9c7b8"), "nginx:1.25");
        assertThat(PodTemplateHash.equalIgnoringHash(plain, hashed)).isTrue();
        assertThat(PodTemplateHash.equalIgnoringHash(plain, template(Map.of("app", "web", "x", "y"), "nginx:1.25")))
                .isFalse();
        assertThat(PodTemplateHash.equalIgnoringHash(
                        template(Map.of(), "a"), template(Map.of("pod-template-hash", "x"), "a")))
                .isTrue();
    }
}
