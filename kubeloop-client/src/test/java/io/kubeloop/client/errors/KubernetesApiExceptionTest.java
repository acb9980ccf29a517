package io.kubeloop.client.errors;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Status;
import io.kubeloop.model.StatusReason;
import io.kubeloop.model.Statuses;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class KubernetesApiExceptionTest {

    private static final Map<String, List<String>> JSON = Map.of("Content-Type", List.of("application/json"));

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String statusJson(int code, String reason, String message) {
        return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\""
                + message + "\",\"reason\":\"" + reason + "\",\"code\":" + code + "}";
    }

    static Stream<Arguments> reasons() {
        return Stream.of(
                Arguments.of(400, "BadRequest", BadRequestException.class),
                Arguments.of(401, "Unauthorized", UnauthorizedException.class),
                Arguments.of(403, "Forbidden", ForbiddenException.class),
                Arguments.of(404, "NotFound", NotFoundException.class),
                Arguments.of(405, "MethodNotAllowed", MethodNotAllowedException.class),
                Arguments.of(406, "NotAcceptable", NotAcceptableException.class),
                Arguments.of(409, "AlreadyExists", AlreadyExistsException.class),
                Arguments.of(409, "Conflict", ConflictException.class),
                Arguments.of(410, "Expired", ExpiredException.class),
                Arguments.of(410, "Gone", ExpiredException.class),
                Arguments.of(413, "RequestEntityTooLarge", RequestEntityTooLargeException.class),
                Arguments.of(415, "UnsupportedMediaType", UnsupportedMediaTypeException.class),
                Arguments.of(422, "Invalid", InvalidException.class),
                Arguments.of(429, "TooManyRequests", TooManyRequestsException.class),
                Arguments.of(500, "InternalError", InternalErrorException.class),
                Arguments.of(500, "ServerTimeout", ServerTimeoutException.class),
                Arguments.of(503, "ServiceUnavailable", ServiceUnavailableException.class),
                Arguments.of(504, "Timeout", TimeoutException.class));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("reasons")
    void aStatusBodyMapsByItsReason(int code, String reason, Class<?> type) {
        KubernetesApiException e = KubernetesApiException.fromResponse(
                code,
                JSON,
                bytes(statusJson(code, reason, "it went wrong")),
                "GET",
                "/api/v1/namespaces/default/pods/x");

        assertThat(e).isExactlyInstanceOf(type);
        assertThat(e.code()).isEqualTo(code);
        assertThat(e.reason()).isEqualTo(reason);
        assertThat(e.serverMessage()).isEqualTo("it went wrong");
        assertThat(e.hasServerStatus()).isTrue();
        assertThat(e.method()).isEqualTo("GET");
        assertThat(e.path()).isEqualTo("/api/v1/namespaces/default/pods/x");
        assertThat(e.getMessage())
                .isEqualTo("GET /api/v1/namespaces/default/pods/x: " + code + " " + reason + ": it went wrong");
    }

    @Test
    void everyReasonOfTheModelHasItsOwnClassAndCodesWithoutReasonMapByCode() {
        for (StatusReason r : StatusReason.values()) {
            KubernetesApiException byReason =
                    KubernetesApiException.fromStatus(r.code(), Statuses.failure(r, "m"), "GET", "/x");
            assertThat(byReason.getClass()).as(r.name()).isNotEqualTo(KubernetesApiException.class);
            Status noReason = Statuses.failure(r, "m");
            noReason.setReason(null);
            KubernetesApiException byCode = KubernetesApiException.fromStatus(r.code(), noReason, "GET", "/x");
            assertThat(byCode.getClass()).as(r.name() + " by code").isNotEqualTo(KubernetesApiException.class);
        }
        // 409 without a reason is a Conflict, 410 Expired, 500 InternalError (kube's defaults for the code).
        assertThat(KubernetesApiException.fromResponse(
                        409, JSON, bytes("{\"kind\":\"Status\",\"code\":409}"), "PUT", "/x"))
                .isExactlyInstanceOf(ConflictException.class);
        assertThat(KubernetesApiException.fromResponse(500, JSON, bytes("{\"kind\":\"Status\"}"), "GET", "/x"))
                .isExactlyInstanceOf(InternalErrorException.class);
    }

    @Test
    void anUnknownReasonMapsByCodeAndAnUnknownCodeIsTheBaseClass() {
        KubernetesApiException e = KubernetesApiException.fromResponse(
                404, JSON, bytes(statusJson(404, "SomethingNew", "gone fishing")), "GET", "/x");
        assertThat(e).isExactlyInstanceOf(NotFoundException.class);
        assertThat(e.reason()).isEqualTo("SomethingNew");

        KubernetesApiException teapot = KubernetesApiException.fromResponse(
                418, JSON, bytes(statusJson(418, "", "short and stout")), "GET", "/x");
        assertThat(teapot).isExactlyInstanceOf(KubernetesApiException.class);
        assertThat(teapot.getMessage()).isEqualTo("GET /x: 418: short and stout");
    }

    @Test
    void invalidCarriesItsCausesAndDetails() {
        String body = """
                {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
                 "message":"Pod \\"x\\" is invalid: [metadata.name: Required value: name is required, spec.containers: Required value]",
                 "reason":"Invalid","code":422,
                 "details":{"name":"x","kind":"Pod","causes":[
                   {"reason":"FieldValueRequired","message":"Required value: name is required","field":"metadata.name"},
                   {"reason":"FieldValueRequired","message":"Required value","field":"spec.containers"},
                   {"message":"no field, no reason"}, 42]}}
                """;
        InvalidException e = (InvalidException)
                KubernetesApiException.fromResponse(422, JSON, bytes(body), "POST", "/api/v1/namespaces/default/pods");
        assertThat(e.causes())
                .containsExactly(
                        new InvalidException.Cause(
                                "metadata.name", "FieldValueRequired", "Required value: name is required"),
                        new InvalidException.Cause("spec.containers", "FieldValueRequired", "Required value"),
                        new InvalidException.Cause("", "", "no field, no reason"));
        assertThat(e.status().getDetails().getKind()).isEqualTo("Pod");
        assertThat(e.status().getDetails().getName()).isEqualTo("x");
    }

    @Test
    void retryAfterComesFromTheHeaderElseFromTheDetails() {
        String withDetails = "{\"kind\":\"Status\",\"reason\":\"TooManyRequests\",\"code\":429,"
                + "\"details\":{\"retryAfterSeconds\":7}}";
        KubernetesApiException fromDetails =
                KubernetesApiException.fromResponse(429, JSON, bytes(withDetails), "GET", "/x");
        assertThat(fromDetails).isInstanceOf(TooManyRequestsException.class);
        assertThat(fromDetails.retryAfterSeconds()).hasValue(7);

        KubernetesApiException fromHeader = KubernetesApiException.fromResponse(
                429, Map.of("retry-after", List.of(" 3 ")), bytes(withDetails), "GET", "/x");
        assertThat(fromHeader.retryAfterSeconds()).hasValue(3);

        assertThat(KubernetesApiException.fromResponse(
                                429,
                                Map.of("Retry-After", List.of("Wed, 21 Oct 2015 07:28:00 GMT")),
                                bytes("{\"kind\":\"Status\"}"),
                                "GET",
                                "/x")
                        .retryAfterSeconds())
                .isEmpty();
        assertThat(KubernetesApiException.fromResponse(
                                429, Map.of("Retry-After", List.of("99999999999999999999")), null, "GET", "/x")
                        .retryAfterSeconds())
                .hasValue(Integer.MAX_VALUE);
        assertThat(KubernetesApiException.fromResponse(503, Map.of("Retry-After", List.of("0002")), null, "GET", "/x")
                        .retryAfterSeconds())
                .hasValue(2);
        assertThat(KubernetesApiException.fromResponse(503, Map.of(), null, "GET", "/x")
                        .retryAfterSeconds())
                .isEmpty();
    }

    @Test
    void priorityAndFairnessPlainText429IsTooManyRequestsWithItsRetryAfter() {
        KubernetesApiException e = KubernetesApiException.fromResponse(
                429,
                Map.of("Content-Type", List.of("text/plain; charset=utf-8"), "Retry-After", List.of("1")),
                bytes("Too many requests, please try again later.\n"),
                "GET",
                "/api/v1/pods");

        assertThat(e).isExactlyInstanceOf(TooManyRequestsException.class);
        assertThat(e.hasServerStatus()).isFalse();
        assertThat(e.retryAfterSeconds()).hasValue(1);
        assertThat(e.reason()).isEqualTo("TooManyRequests");
        assertThat(e.getMessage())
                .isEqualTo("GET /api/v1/pods: 429 TooManyRequests: the server has received too many "
                        + "requests and has asked us to try again later (not a Status: content type text/plain; charset=utf-8, "
                        + "43 bytes: \"Too many requests, please try again later.\\n\")");
        assertThat(e.status().getDetails().getCauses()).singleElement().satisfies(c -> {
            assertThat(c.getReason()).isEqualTo("UnexpectedServerResponse");
            assertThat(c.getMessage()).isEqualTo("Too many requests, please try again later.\\n");
        });
    }

    @Test
    void aNonStatusBodyGivesCodeContentTypeAndABoundedEscapedExcerpt() {
        String html = "<html>\u001b[31m\r\n" + "x".repeat(2000) + "</html>";
        KubernetesApiException e = KubernetesApiException.fromResponse(
                502, Map.of("content-type", List.of("text/html")), bytes(html), "GET", "/api/v1/pods");

        assertThat(e).isExactlyInstanceOf(KubernetesApiException.class);
        assertThat(e.code()).isEqualTo(502);
        assertThat(e.getMessage())
                .startsWith("GET /api/v1/pods: 502: an unexpected answer from the server (not a Status: content type "
                        + "text/html, " + html.length() + " bytes: \"<html>\\u001B[31m\\r\\nxxx")
                .endsWith("x…\")")
                .doesNotContain("\r", "\n", "\u001b", "</html>");
        String excerpt = e.status().getDetails().getCauses().get(0).getMessage();
        assertThat(excerpt.codePointCount(0, excerpt.length())).isLessThan(600);
    }

    @Test
    void emptyNonJsonAndNonStatusJsonBodiesAreReportedNotParsed() {
        assertThat(KubernetesApiException.fromResponse(503, null, null, "GET", "/x")
                        .getMessage())
                .isEqualTo("GET /x: 503 ServiceUnavailable: the server is currently unable to handle the request "
                        + "(not a Status: no content type, empty body)");
        KubernetesApiException pod = KubernetesApiException.fromResponse(
                404, JSON, bytes("{\"kind\":\"Pod\",\"message\":\"not me\"}"), "GET", "/x");
        assertThat(pod).isExactlyInstanceOf(NotFoundException.class);
        assertThat(pod.hasServerStatus()).isFalse();
        assertThat(pod.getMessage())
                .contains("not a Status: content type application/json", "{\\\"kind\\\":\\\"Pod\\\"");
        KubernetesApiException truncated = KubernetesApiException.fromResponse(
                500, JSON, bytes("{\"kind\":\"Status\",\"message\":\"cut"), "GET", "/x");
        assertThat(truncated.hasServerStatus()).isFalse();
        assertThat(truncated).isExactlyInstanceOf(InternalErrorException.class);
    }

    @Test
    void fieldsOfTheWrongTypeAreLeftUnsetInsteadOfFailing() {
        KubernetesApiException e = KubernetesApiException.fromResponse(
                404,
                JSON,
                bytes("{\"kind\":\"Status\",\"code\":\"404\",\"reason\":7,\"message\":[\"x\"],\"details\":\"nope\","
                        + "\"metadata\":5}"),
                "GET",
                "/x");
        assertThat(e).isExactlyInstanceOf(NotFoundException.class);
        assertThat(e.hasServerStatus()).isTrue();
        assertThat(e.getMessage()).isEqualTo("GET /x: 404: (no message)");
    }

    @Test
    void watchErrorsMapByStatusAndExpiredTellsResourceVersionFromContinue() {
        ExpiredException tooOld = (ExpiredException)
                KubernetesApiException.fromWatchError(Statuses.expired("too old resource version: 5 (99)"));
        assertThat(tooOld.code()).isEqualTo(410);
        assertThat(tooOld.isResourceVersionTooOld()).isTrue();
        assertThat(tooOld.isContinueExpired()).isFalse();
        assertThat(tooOld.getMessage()).isEqualTo("410 Expired: too old resource version: 5 (99)");

        Status gone = new Status();
        gone.setKind("Status");
        gone.setReason("Gone"); // no code: the reason's code
        KubernetesApiException goneEx = KubernetesApiException.fromWatchError(gone, "GET", "/api/v1/pods?watch=true");
        assertThat(goneEx).isInstanceOf(ExpiredException.class);
        assertThat(goneEx.code()).isEqualTo(410);
        assertThat(goneEx.getMessage()).startsWith("GET /api/v1/pods?watch=true: 410 Gone");

        Status nothing = new Status();
        assertThat(KubernetesApiException.fromWatchError(nothing))
                .isInstanceOf(InternalErrorException.class)
                .extracting(KubernetesApiException::code)
                .isEqualTo(500);

        String continueExpired =
                "{\"kind\":\"Status\",\"metadata\":{\"continue\":\"next-token\"},\"reason\":\"Expired\","
                        + "\"message\":\"The provided continue parameter is too old to display a consistent list result.\","
                        + "\"code\":410}";
        ExpiredException c = (ExpiredException) KubernetesApiException.fromResponse(
                410, JSON, bytes(continueExpired), "GET", "/api/v1/pods?limit=500&continue=abc");
        assertThat(c.isContinueExpired()).isTrue();
        assertThat(c.isResourceVersionTooOld()).isFalse();
        assertThat(c.inconsistentContinue()).hasValue("next-token");
        assertThat(tooOld.inconsistentContinue()).isEmpty();
    }

    @Test
    void headersNeverReachTheMessageOrTheException() {
        String secret = "eyJhbGciOiJSUzI1NiIsImtpZCI6InNlY3JldCJ9.c2VjcmV0LXRva2Vu";
        Map<String, List<String>> headers = Map.of(
                "Authorization", List.of("Bearer " + secret),
                "Set-Cookie", List.of("session=" + secret),
                "Content-Type", List.of("text/plain"));
        KubernetesApiException e =
                KubernetesApiException.fromResponse(401, headers, bytes("Unauthorized"), "GET", "/api");
        assertThat(e).isInstanceOf(UnauthorizedException.class);
        assertThat(e.getMessage()).doesNotContain(secret);
        assertThat(e.toString()).doesNotContain(secret);
        assertThat(e.status().toString()).doesNotContain(secret);
    }

    @Test
    void hugeServerMessagesAreCutAndControlCharactersInThePathEscaped() {
        String big = "m".repeat(10_000);
        KubernetesApiException e = KubernetesApiException.fromResponse(
                500, JSON, bytes(statusJson(500, "InternalError", big)), "GET", "/x\n/y");
        assertThat(e.getMessage())
                .startsWith("GET /x\\n/y: 500 InternalError: mmm")
                .endsWith("… (10000 characters)");
        assertThat(e.getMessage().length()).isLessThan(4200);
        assertThat(e.serverMessage()).isEqualTo(big);
    }
}
