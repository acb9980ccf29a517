package io.kubeloop.client.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.Service;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link DeferredBeans} changes when deserializers are built, never what is decoded: objects with every property of
 * every reachable model class filled in (and, separately, every property null) decode exactly as with Jackson's
 * eager resolution, in every decoding.
 */
class DeferredBeansTest {

    /** Jackson as it comes: every deserializer of the graph built up front. */
    private static final JsonMapper EAGER = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private static final int MAX_DEPTH = 12;

    static Stream<Class<?>> roots() {
        return Stream.of(
                Pod.class,
                PodList.class,
                ReplicationController.class,
                Service.class,
                Endpoints.class,
                Node.class,
                PersistentVolume.class,
                PersistentVolumeClaim.class,
                ResourceQuota.class,
                Event.class);
    }

    @ParameterizedTest
    @MethodSource("roots")
    void everyPropertyFilledInDecodesAsJacksonAlone(Class<?> root) {
        JsonNode json = new ModelJson(false, false, MAX_DEPTH).of(root);
        assertThat(json.size()).isGreaterThan(2);
        assertSameDecoding(root, json.toString());
    }

    @ParameterizedTest
    @MethodSource("roots")
    void everyNestedPropertyNullDecodesAsJacksonAlone(Class<?> root) {
        assertSameDecoding(root, new ModelJson(true, false, MAX_DEPTH).of(root).toString());
    }

    private static void assertSameDecoding(Class<?> root, String json) {
        Object eager = EAGER.readValue(json, root);
        String expected = EAGER.writeValueAsString(eager);
        for (Decoding decoding : new Decoding[] {Decoding.standard(), Decoding.compact()}) {
            Object decoded = decoding.mapper().readValue(json, root);
            assertThat(EAGER.writeValueAsString(decoded))
                    .as("%s, %s", root.getSimpleName(), decoding)
                    .isEqualTo(expected);
            assertThat(decoded).as("%s, %s", root.getSimpleName(), decoding).isEqualTo(eager);
        }
    }
}
