package io.kubeloop.client.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RetryPolicyTest {

    private final RetryPolicy policy = RetryPolicy.defaults();

    private static Map<String, List<String>> retryAfter(String v) {
        return Map.of("Retry-After", List.of(v));
    }

    @ParameterizedTest(name = "{0} {1} Retry-After={2} → {3}")
    @CsvSource(
            nullValues = "none",
            value = {
                // method, code, Retry-After, expected delay in ms (-1: give up)
                "GET,    429, 2,    2000",
                "GET,    429, none, 1000",
                "GET,    503, 5,    5000",
                "GET,    503, none, 1000",
                "get,    503, 0,    0",
                "HEAD,   429, 1,    1000",
                "GET,    500, 3,    3000",
                "GET,    504, 1,    1000",
                "GET,    500, none, -1",
                "GET,    502, none, -1",
                "GET,    500, soon, -1",
                "GET,    404, 1,    -1",
                "GET,    409, 1,    -1",
                "GET,    200, 1,    -1",
                "GET,    429, 3600, 30000",
                "POST,   429, 1,    -1",
                "PUT,    503, 1,    -1",
                "PATCH,  429, none, -1",
                "DELETE, 503, 1,    -1",
            })
    void answers(String method, int code, String retryAfter, long expectedMillis) {
        RetryDecision d = policy.onResponse(method, 1, code, retryAfter == null ? Map.of() : retryAfter(retryAfter));
        if (expectedMillis < 0) {
            assertThat(d).isInstanceOf(RetryDecision.GiveUp.class);
            assertThat(d.retry()).isFalse();
        } else {
            assertThat(d).isInstanceOf(RetryDecision.Retry.class);
            assertThat(((RetryDecision.Retry) d).delay()).isEqualTo(Duration.ofMillis(expectedMillis));
        }
    }

    @Test
    void decisionsSayWhy() {
        assertThat(policy.onResponse("POST", 1, 429, retryAfter("1")).reason())
                .isEqualTo("POST is a write: never retried");
        assertThat(policy.onResponse("GET", 1, 429, retryAfter("99")).reason())
                .isEqualTo("429 with Retry-After: 99 (capped at 30 s)");
        assertThat(policy.onResponse("GET", 1, 500, null).reason()).isEqualTo("500 without Retry-After is not retried");
        assertThat(policy.onResponse("GET", 11, 503, null).reason())
                .isEqualTo("503 after 11 attempts: retries exhausted (10)");
        assertThat(policy.onResponse(null, 1, 503, null).reason()).isEqualTo("(no method) is a write: never retried");
    }

    @Test
    void atMostTenRetriesSoElevenAttempts() {
        int attempts = 0;
        RetryDecision d;
        do {
            attempts++;
            d = policy.onResponse("GET", attempts, 429, retryAfter("1"));
        } while (d.retry() && attempts < 100);
        assertThat(attempts).isEqualTo(11);

        RetryPolicy three = RetryPolicy.builder().maxRetries(3).build();
        assertThat(three.onResponse("GET", 3, 503, null).retry()).isTrue();
        assertThat(three.onResponse("GET", 4, 503, null).retry()).isFalse();
        assertThat(RetryPolicy.never().onResponse("GET", 1, 503, null).retry()).isFalse();
        assertThat(RetryPolicy.never().onError("GET", 1, new ConnectException()).retry())
                .isFalse();
    }

    @Test
    void refusedAndResetConnectionsAreRetriedForReadsOnly() {
        IOException refused = new ConnectException("Connection refused");
        IOException wrapped = new IOException("HTTP/1.1 request failed", new SocketException("Connection reset"));
        IOException noBytes = new IOException("HTTP/1.1 header parser received no bytes");
        IOException eof = new EOFException("EOF reached while reading");

        for (IOException e : List.of(refused, wrapped, noBytes, eof)) {
            RetryDecision d = policy.onError("GET", 1, e);
            assertThat(d).as(e.toString()).isEqualTo(new RetryDecision.Retry(Duration.ofSeconds(1), d.reason()));
            assertThat(policy.onError("POST", 1, e).retry()).as("POST " + e).isFalse();
            assertThat(policy.onError("GET", 11, e).retry())
                    .as("exhausted " + e)
                    .isFalse();
        }
        assertThat(policy.onError("GET", 1, refused).reason()).isEqualTo("connection refused: retry after 1000 ms");
        assertThat(policy.onError("GET", 1, wrapped).reason()).startsWith("connection reset");
    }

    @Test
    void timeoutsAndOtherErrorsAreNotRetried() {
        assertThat(policy.onError("GET", 1, new HttpTimeoutException("request timed out"))
                        .retry())
                .isFalse();
        // a connect timeout is a ConnectException-like failure, but still a timeout
        assertThat(policy.onError("GET", 1, new HttpConnectTimeoutException("HTTP connect timed out"))
                        .retry())
                .isFalse();
        assertThat(policy.onError("GET", 1, new IOException("some other failure"))
                        .reason())
                .isEqualTo("IOException is not retried");
        assertThat(policy.onError("GET", 1, new javax.net.ssl.SSLHandshakeException("PKIX path"))
                        .retry())
                .isFalse();
    }

    @Test
    void settingsAreValidatedAndUsed() {
        RetryPolicy p = RetryPolicy.builder()
                .defaultDelay(Duration.ofMillis(250))
                .maxDelay(Duration.ofSeconds(5))
                .build();
        assertThat(((RetryDecision.Retry) p.onResponse("GET", 1, 503, null)).delay())
                .isEqualTo(Duration.ofMillis(250));
        assertThat(((RetryDecision.Retry) p.onResponse("GET", 1, 429, retryAfter("60"))).delay())
                .isEqualTo(Duration.ofSeconds(5));
        assertThat(((RetryDecision.Retry) p.onError("GET", 1, new ConnectException())).delay())
                .isEqualTo(Duration.ofMillis(250));
        assertThatThrownBy(() -> RetryPolicy.builder().maxRetries(-1))
                .hasMessage("maxRetries must not be negative, was -1");
        assertThatThrownBy(() -> RetryPolicy.builder().defaultDelay(Duration.ofSeconds(-1)))
                .hasMessageStartingWith("defaultDelay must not be negative");
        assertThat(RetryPolicy.isRead("GET")).isTrue();
        assertThat(RetryPolicy.isRead("POST")).isFalse();
    }

    @Test
    void hugeRetryAfterIsCappedNotOverflowed() {
        RetryDecision d = policy.onResponse("GET", 1, 429, retryAfter("99999999999999999999999"));
        assertThat(((RetryDecision.Retry) d).delay()).isEqualTo(Duration.ofSeconds(30));
    }
}
