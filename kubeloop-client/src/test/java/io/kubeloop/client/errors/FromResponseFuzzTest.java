package io.kubeloop.client.errors;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** {@code fromResponse} is total: whatever the server sends, it gives a typed exception with a bounded message. */
class FromResponseFuzzTest {

    @Property(tries = 2000)
    void randomBytesNeverFailAndStayBounded(
            @ForAll @IntRange(min = 100, max = 599) int code,
            @ForAll("bodies") byte[] body,
            @ForAll("headerValues") String contentType,
            @ForAll("headerValues") String retryAfter) {
        Map<String, List<String>> headers =
                Map.of("Content-Type", List.of(contentType), "Retry-After", List.of(retryAfter));
        KubernetesApiException e = KubernetesApiException.fromResponse(code, headers, body, "GET", "/api/v1/pods");

        assertThat(e.code()).isEqualTo(code);
        assertThat(e.status()).isNotNull();
        assertThat(e.getMessage()).startsWith("GET /api/v1/pods: " + code);
        if (!e.hasServerStatus()) {
            // code, content type and excerpt: bounded whatever the body's size, and one printable line
            assertThat(e.getMessage().length()).isLessThan(200 + 128 * 6 + 512 * 11);
            assertThat(e.getMessage()).doesNotContain("\n", "\r", "\u0000", "\u202e");
        }
        assertThat(e.retryAfterSeconds().orElse(0)).isNotNegative();
    }

    @Property(tries = 1000)
    void mutatedStatusesNeverFail(
            @ForAll("mutatedStatuses") byte[] body, @ForAll @IntRange(min = 400, max = 599) int code) {
        KubernetesApiException e = KubernetesApiException.fromResponse(code, Map.of(), body, "PUT", "/x");
        assertThat(e.code()).isEqualTo(code);
        assertThat(e.getMessage()).isNotNull();
        if (e instanceof InvalidException invalid) {
            assertThat(invalid.causes()).isNotNull();
        }
        if (e instanceof ExpiredException expired) {
            assertThat(expired.inconsistentContinue()).isNotNull();
        }
    }

    @Provide
    Arbitrary<byte[]> bodies() {
        Arbitrary<byte[]> raw = Arbitraries.bytes().array(byte[].class).ofMaxSize(3000);
        Arbitrary<byte[]> text =
                Arbitraries.strings().all().ofMaxLength(3000).map(s -> s.getBytes(StandardCharsets.UTF_8));
        Arbitrary<byte[]> big = Arbitraries.integers()
                .between(10_000, 200_000)
                .map(n ->
                        ("{\"kind\":\"Status\",\"message\":\"" + "\u202e".repeat(n)).getBytes(StandardCharsets.UTF_8));
        return Arbitraries.oneOf(raw, text, big, Arbitraries.just(null), Arbitraries.just(new byte[0]));
    }

    @Provide
    Arbitrary<String> headerValues() {
        return Arbitraries.oneOf(
                Arbitraries.strings().all().ofMaxLength(300),
                Arbitraries.strings().numeric().ofMaxLength(30),
                Arbitraries.just("-1"),
                Arbitraries.just("1e3"));
    }

    /** A real Status with a random cut, a random byte changed, or a field replaced by a random JSON value. */
    @Provide
    Arbitrary<byte[]> mutatedStatuses() {
        String status = """
                {"kind":"Status","apiVersion":"v1","metadata":{"continue":"c","resourceVersion":"5"},"status":"Failure",
                 "message":"Pod \\"x\\" is invalid","reason":"Invalid","code":422,
                 "details":{"name":"x","kind":"Pod","retryAfterSeconds":3,"causes":[
                   {"reason":"FieldValueRequired","message":"Required value","field":"metadata.name"}]}}
                """;
        byte[] base = status.getBytes(StandardCharsets.UTF_8);
        Arbitrary<byte[]> cut =
                Arbitraries.integers().between(0, base.length).map(n -> java.util.Arrays.copyOf(base, n));
        Arbitrary<byte[]> flipped = Combinators.combine(
                        Arbitraries.integers().between(0, base.length - 1), Arbitraries.bytes())
                .as((i, b) -> {
                    byte[] copy = base.clone();
                    copy[i] = b;
                    return copy;
                });
        Arbitrary<String> jsonValue = Arbitraries.of(
                "null",
                "true",
                "-1",
                "2147483648",
                "1.5",
                "\"s\"",
                "[]",
                "{}",
                "[{}]",
                "[null]",
                "{\"causes\":{}}",
                "\"\\u0000\"");
        Arbitrary<byte[]> replaced = Combinators.combine(
                        Arbitraries.of(
                                "\"metadata\"",
                                "\"message\"",
                                "\"reason\"",
                                "\"code\"",
                                "\"details\"",
                                "\"causes\"",
                                "\"retryAfterSeconds\"",
                                "\"continue\"",
                                "\"field\""),
                        jsonValue)
                .as((field, value) -> status.replaceFirst(
                                java.util.regex.Pattern.quote(field) + ":",
                                field + ":" + java.util.regex.Matcher.quoteReplacement(value) + ",\"was\":")
                        .getBytes(StandardCharsets.UTF_8));
        return Arbitraries.oneOf(cut, flipped, replaced);
    }
}
