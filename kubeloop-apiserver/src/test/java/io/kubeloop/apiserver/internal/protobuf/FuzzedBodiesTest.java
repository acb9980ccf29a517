package io.kubeloop.apiserver.internal.protobuf;

import static io.kubeloop.apiserver.internal.protobuf.RoundTripTest.CODEC;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import tools.jackson.databind.node.ObjectNode;

/**
 * No input makes the decoder throw anything but a ProtobufException; whatever it does decode is a clean object
 * that encodes and decodes back to itself. Inputs: random bytes, and real bodies (kubectl's and every round-trip
 * object's) truncated at every offset or with random bytes changed.
 */
class FuzzedBodiesTest {

    static final List<byte[]> VALID = validBodies();

    @Property(tries = 1000)
    void randomBytesDecodeOrFailCleanly(@ForAll @Size(max = 400) byte[] bytes) {
        decodeOrFailCleanly(bytes);
        byte[] prefixed = new byte[bytes.length + 4];
        prefixed[0] = 'k';
        prefixed[1] = '8';
        prefixed[2] = 's';
        System.arraycopy(bytes, 0, prefixed, 4, bytes.length);
        decodeOrFailCleanly(prefixed);
    }

    @Example
    void everyValidBodyTruncatedAtEveryOffsetDecodesOrFailsCleanly() {
        for (byte[] body : VALID) {
            for (int length = 0; length < body.length; length++) {
                decodeOrFailCleanly(java.util.Arrays.copyOf(body, length));
            }
        }
    }

    @Property(tries = 3000)
    void validBodiesWithRandomBytesChangedDecodeOrFailCleanly(@ForAll("flipped") byte[] body) {
        decodeOrFailCleanly(body);
    }

    @Provide
    Arbitrary<byte[]> flipped() {
        return Arbitraries.of(VALID).flatMap(body -> Arbitraries.integers()
                .between(0, body.length - 1)
                .list()
                .ofMinSize(1)
                .ofMaxSize(4)
                .flatMap(positions -> Arbitraries.bytes()
                        .list()
                        .ofSize(positions.size())
                        .map(values -> {
                            byte[] changed = body.clone();
                            for (int i = 0; i < positions.size(); i++) {
                                changed[positions.get(i)] = values.get(i);
                            }
                            return changed;
                        })));
    }

    private static void decodeOrFailCleanly(byte[] body) {
        ObjectNode decoded;
        try {
            decoded = CODEC.decode(body);
        } catch (ProtobufException expected) {
            assertThat(expected.getMessage()).isNotBlank();
            return;
        }
        assertThat(CODEC.decode(CODEC.encode(decoded))).isEqualTo(decoded);
    }

    private static List<byte[]> validBodies() {
        List<byte[]> bodies = new ArrayList<>();
        GoldenBodiesTest.bodies()
                .forEach(name -> bodies.add(GoldenBodiesTest.bytes("protobuf/kubectl/" + name + ".bin")));
        RoundTripTest.objects()
                .forEach(name -> bodies.add(CODEC.encode(RoundTripTest.read("protobuf/objects/" + name + ".json"))));
        return bodies;
    }
}
