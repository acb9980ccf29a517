package io.kubeloop.client.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * Parts and managedFields trees are kept as the text they arrived in ({@link RawInput}), which must be exactly each
 * value's bytes however the stream is cut into reads: decoding gives what Jackson alone gives, for values far larger
 * than a read, read a few bytes at a time, with whitespace, escapes and non-ASCII text inside.
 */
class RawInputTest {

    private static final JsonMapper JACKSON = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    @ParameterizedTest
    @ValueSource(ints = {1, 3, 7, 100, 8191, 65536})
    void valuesSpanningManyReadsAreKeptWhole(int largestRead) {
        byte[] json = list(40).getBytes(StandardCharsets.UTF_8);
        for (Decoding decoding : new Decoding[] {Decoding.standard(), Decoding.compact()}) {
            PodList decoded = decoding.mapper().readValue(new Trickle(json, largestRead, 42), PodList.class);
            assertSame(decoded, JACKSON.readValue(json, PodList.class));
        }
    }

    @Test
    void aByteOrderMarkDoesNotShiftTheText() {
        byte[] body = pod(1).getBytes(StandardCharsets.UTF_8);
        byte[] json = new byte[body.length + 3];
        json[0] = (byte) 0xEF;
        json[1] = (byte) 0xBB;
        json[2] = (byte) 0xBF;
        System.arraycopy(body, 0, json, 3, body.length);
        for (Decoding decoding : new Decoding[] {Decoding.standard(), Decoding.compact()}) {
            assertSame(
                    decoding.mapper().readValue(new Trickle(json, 5, 7), Pod.class),
                    JACKSON.readValue(body, Pod.class));
        }
    }

    private static void assertSame(Object decoded, Object expected) {
        assertThat(JACKSON.writeValueAsString(decoded)).isEqualTo(JACKSON.writeValueAsString(expected));
        assertThat(decoded).isEqualTo(expected);
    }

    /** A list of pods with large, escaped, spaced and non-ASCII parts and managedFields trees. */
    private static String list(int pods) {
        StringBuilder s = new StringBuilder("{ \"kind\": \"PodList\", \"items\": [\n");
        for (int i = 0; i < pods; i++) {
            s.append(i == 0 ? "" : ",\n").append(pod(i));
        }
        return s.append("\n],\"metadata\":{\"resourceVersion\":\"9\"}}").toString();
    }

    private static String pod(int i) {
        StringBuilder fields = new StringBuilder("{ \"f:metadata\" : {\"f:labels\":{");
        for (int k = 0; k < 300 + i * 37; k++) {
            fields.append(k == 0 ? "" : ",").append("\"f:k").append(k).append("\\u003c\\u00e9\":{}");
        }
        fields.append("}}, \"f:status\":{\"f:podIP\":{}, \"k:{\\\"ip\\\":\\\"10.0.0.")
                .append(i)
                .append("\\\"}\":{\".\":{}}}}");
        return "{\"metadata\":{\"name\":\"p" + i + "\",\"namespace\":\"ns\",\"labels\":{\"app\":\"w\u00e9b\"},"
                + "\"managedFields\":[{\"manager\":\"kubelet\",\"operation\":\"Update\",\"fieldsType\":\"FieldsV1\","
                + "\"fieldsV1\":" + fields + "},{\"manager\":\"m\",\"fieldsV1\":{}}]},"
                + "\"spec\":{\"containers\":[ {\"name\" : \"c\", \"image\":\"reg/app:v" + (i % 3) + "\","
                + "\"env\":[{\"name\":\"A\",\"value\":\"<&>\\\" \\ud83d\\ude00 \\t\"},"
                + "{\"name\":\"B\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":\"status.podIP\"}}}],"
                + "\"ports\":[{\"containerPort\":8080,\"protocol\":\"TCP\"}],"
                + "\"resources\":{\"limits\":{\"cpu\":\"1500m\",\"memory\":\"1.5Gi\"}}}],"
                + "\"tolerations\":[{\"key\":\"k\",\"operator\":\"Exists\",\"tolerationSeconds\":300}]},"
                + "\"status\":{\"phase\":\"Running\",\"podIP\":\"10.0.0." + i + "\",\"conditions\":["
                + "{\"type\":\"Ready\",\"status\":\"True\",\"lastTransitionTime\":\"2026-11-30T10:00:00Z\"}]}}";
    }

    /** Hands out at most {@code largestRead} bytes per read, a random number of them. */
    private static final class Trickle extends InputStream {
        private final byte[] data;
        private final int largestRead;
        private final Random random;
        private int next;

        Trickle(byte[] data, int largestRead, long seed) {
            this.data = data;
            this.largestRead = largestRead;
            this.random = new Random(seed);
        }

        @Override
        public int read() {
            return next < data.length ? data[next++] & 0xff : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (next >= data.length) {
                return -1;
            }
            int n = Math.min(Math.min(len, data.length - next), 1 + random.nextInt(largestRead));
            System.arraycopy(data, next, b, off, n);
            next += n;
            return n;
        }
    }
}
