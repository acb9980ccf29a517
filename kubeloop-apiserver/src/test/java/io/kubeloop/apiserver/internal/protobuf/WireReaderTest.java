package io.kubeloop.apiserver.internal.protobuf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class WireReaderTest {

    @Test
    void readsVarintsStringsAndNestedMessagesAndSkipsUnknownFields() {
        byte[] bytes = new ProtoWriter()
                .varint(1, 300)
                .string(2, "héllo")
                .fixed32(9, 7)
                .fixed64(10, 8)
                .bytes(11, new byte[200]) // a two-byte length, skipped
                .varint(12, -1) // a ten-byte varint, skipped
                .message(3, new ProtoWriter().string(1, "inner").varint(2, 1))
                .string(4, "after")
                .toByteArray();
        WireReader r = new WireReader(bytes);
        List<String> seen = new ArrayList<>();
        while (r.next()) {
            switch (r.fieldNumber()) {
                case 1 -> seen.add("1=" + r.readVarint());
                case 2 -> seen.add("2=" + r.readString());
                case 3 -> {
                    WireReader inner = r.readMessage();
                    while (inner.next()) {
                        seen.add("3." + inner.fieldNumber() + "="
                                + (inner.wireType() == WireReader.VARINT ? inner.readBool() : inner.readString()));
                    }
                }
                case 4 -> seen.add("4=" + r.readString());
                default -> r.skip();
            }
        }
        assertThat(seen).containsExactly("1=300", "2=héllo", "3.1=inner", "3.2=true", "4=after");
    }

    @Test
    void aNestedReaderStopsAtTheEndOfItsMessage() {
        byte[] bytes = new ProtoWriter()
                .message(1, new ProtoWriter().string(1, "a"))
                .string(2, "b")
                .toByteArray();
        WireReader r = new WireReader(bytes);
        assertThat(r.next()).isTrue();
        WireReader inner = r.readMessage();
        assertThat(inner.next()).isTrue();
        assertThat(inner.readString()).isEqualTo("a");
        assertThat(inner.next()).isFalse();
        assertThat(r.next()).isTrue();
        assertThat(r.readString()).isEqualTo("b");
    }

    @Test
    void malformedInputFailsWithAMessageNamingTheProblem() {
        byte[] full = new ProtoWriter().string(1, "hello").toByteArray();
        byte[] truncated = java.util.Arrays.copyOf(full, full.length - 2);
        assertThatThrownBy(() -> readAll(truncated))
                .isInstanceOf(ProtobufException.class)
                .hasMessage("field 1 at offset 1 claims 5 bytes but only 3 remain");
        assertThatThrownBy(() -> readAll(new byte[] {(byte) 0x80}))
                .isInstanceOf(ProtobufException.class)
                .hasMessage("a field tag at offset 0 is truncated");
        byte[] longVarint = new byte[12];
        java.util.Arrays.fill(longVarint, (byte) 0xFF);
        assertThatThrownBy(() -> readAll(longVarint))
                .isInstanceOf(ProtobufException.class)
                .hasMessage("a field tag at offset 0 is a varint longer than 10 bytes");
        assertThatThrownBy(() -> readAll(new byte[] {0x00}))
                .isInstanceOf(ProtobufException.class)
                .hasMessage("invalid field number 0 at offset 0");
        assertThatThrownBy(() -> readAll(new byte[] {0x0B}))
                .isInstanceOf(ProtobufException.class)
                .hasMessage("field 1 has unsupported wire type 3 before offset 1");
        assertThatThrownBy(() -> readAll(new byte[] {0x0D, 1, 2}))
                .isInstanceOf(ProtobufException.class)
                .hasMessage("field 1 is truncated: needs 4 bytes at offset 1, 2 remain");
        assertThatThrownBy(() -> {
                    WireReader r = new WireReader(new ProtoWriter().varint(1, 5).toByteArray());
                    r.next();
                    r.readString();
                })
                .isInstanceOf(ProtobufException.class)
                .hasMessage("field 1 has wire type 0, expected 2 (before offset 1)");
        assertThatThrownBy(() -> {
                    WireReader r = new WireReader(
                            new ProtoWriter().bytes(1, new byte[] {(byte) 0xC3}).toByteArray());
                    r.next();
                    r.readString();
                })
                .isInstanceOf(ProtobufException.class)
                .hasMessage("field 1 at offset 2 is not valid UTF-8");
    }

    @Test
    void theEnvelopeCarriesTypeMetaAndRaw() {
        byte[] body =
                ProtoWriter.kubernetesBody("authorization.k8s.io/v1", "SelfSubjectAccessReview", new byte[] {1, 2});
        Envelope e = Envelope.decode(body);
        assertThat(e.apiVersion()).isEqualTo("authorization.k8s.io/v1");
        assertThat(e.kind()).isEqualTo("SelfSubjectAccessReview");
        assertThat(e.raw()).containsExactly(1, 2);
        assertThat(e.contentEncoding()).isEmpty();
        assertThatThrownBy(() -> Envelope.decode("{\"kind\":\"x\"}".getBytes()))
                .isInstanceOf(ProtobufException.class)
                .hasMessageContaining("k8s\\0");
        assertThatThrownBy(() -> Envelope.decode(new byte[] {'k', '8'})).isInstanceOf(ProtobufException.class);
    }

    /** Any input either reads to the end or fails with a ProtobufException: never another exception or a hang. */
    @Property(tries = 2000)
    void arbitraryBytesNeverEscapeAsAnythingButProtobufException(@ForAll @Size(max = 64) byte[] bytes) {
        try {
            readAll(bytes);
        } catch (ProtobufException expected) {
            assertThat(expected.getMessage()).isNotBlank();
        }
    }

    @Property(tries = 500)
    void everyTruncationOfAValidMessageIsReportedOrReadsAPrefix(
            @ForAll @Size(max = 40) String text, @ForAll long number) {
        byte[] full = new ProtoWriter()
                .varint(1, number)
                .message(2, new ProtoWriter().string(1, text))
                .string(3, text)
                .toByteArray();
        for (int cut = 0; cut < full.length; cut++) {
            try {
                readAll(java.util.Arrays.copyOf(full, cut));
            } catch (ProtobufException expected) {
                // reported, as it must be
            }
        }
        readAll(full);
    }

    /** Reads every field recursively as a message where it can, else as a string, else skips it. */
    private static void readAll(byte[] bytes) {
        readAll(new WireReader(bytes), 0);
    }

    private static void readAll(WireReader r, int depth) {
        while (r.next()) {
            if (r.wireType() == WireReader.LENGTH_DELIMITED && depth < 3 && r.fieldNumber() % 2 == 0) {
                readAll(r.readMessage(), depth + 1);
            } else {
                r.skip();
            }
        }
    }
}
