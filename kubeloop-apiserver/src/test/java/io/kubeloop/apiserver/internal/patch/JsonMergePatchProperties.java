package io.kubeloop.apiserver.internal.patch;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import tools.jackson.databind.JsonNode;

class JsonMergePatchProperties {

    @Provide
    Arbitrary<JsonNode> documents() {
        return JsonArbitraries.objects(3);
    }

    /** RFC 7386 round trip: applying the diff of two null-free objects to the first gives the second. */
    @Property(tries = 300)
    void applyingTheDiffYieldsTheTarget(@ForAll("documents") JsonNode a, @ForAll("documents") JsonNode b) {
        JsonNode patch = JsonMergePatch.diff(a, b);
        assertThat(JsonValues.canonical(JsonMergePatch.apply(a, patch))).isEqualTo(JsonValues.canonical(b));
    }

    @Property(tries = 100)
    void applyingAnObjectToItselfChangesNothing(@ForAll("documents") JsonNode a) {
        assertThat(JsonValues.canonical(JsonMergePatch.apply(a, a))).isEqualTo(JsonValues.canonical(a));
        assertThat(JsonMergePatch.diff(a, a).isEmpty()).isTrue();
    }

    @Property(tries = 100)
    void inputsAreNeverModified(@ForAll("documents") JsonNode a, @ForAll("documents") JsonNode b) {
        String before = a.toString() + b.toString();
        JsonMergePatch.apply(a, b);
        JsonMergePatch.diff(a, b);
        assertThat(a.toString() + b.toString()).isEqualTo(before);
    }
}
