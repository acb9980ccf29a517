package io.kubeloop.informer.testing;

import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.StatusDetails;
import io.kubeloop.client.errors.KubernetesApiException;
import io.kubeloop.client.watch.Watch;
import io.kubeloop.client.watch.WatchIdleTimeoutException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The failures a list or watch meets against a real API server, built exactly as kubeloop-client builds them
 * (the same classes, codes, reasons, messages and Retry-After), for test doubles such as {@link FakeSource}.
 */
public final class ApiErrors {

    private static final String PATH = "/api/v1/fake";

    private ApiErrors() {}

    /** 429 from API Priority and Fairness: plain text with a {@code Retry-After} header. */
    public static KubernetesApiException tooManyRequests(int retryAfterSeconds) {
        return KubernetesApiException.fromResponse(
                429,
                Map.of(
                        "Content-Type",
                        List.of("text/plain; charset=utf-8"),
                        "Retry-After",
                        List.of(Integer.toString(retryAfterSeconds))),
                "Too many requests, please try again later.\n".getBytes(StandardCharsets.UTF_8),
                "GET",
                PATH);
    }

    /** 503 ServiceUnavailable with a {@code Retry-After} header (negative: without one). */
    public static KubernetesApiException serviceUnavailable(int retryAfterSeconds) {
        Status s = status(503, "ServiceUnavailable", "the server is currently unable to handle the request");
        byte[] body = ("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":503,"
                        + "\"reason\":\"ServiceUnavailable\",\"message\":\"" + s.getMessage() + "\"}")
                .getBytes(StandardCharsets.UTF_8);
        Map<String, List<String>> headers = retryAfterSeconds < 0
                ? Map.of("Content-Type", List.of("application/json"))
                : Map.of(
                        "Content-Type",
                        List.of("application/json"),
                        "Retry-After",
                        List.of(Integer.toString(retryAfterSeconds)));
        return KubernetesApiException.fromResponse(503, headers, body, "GET", PATH);
    }

    /** 500 InternalError. */
    public static KubernetesApiException internalError(String message) {
        return KubernetesApiException.fromStatus(500, status(500, "InternalError", message), "GET", PATH);
    }

    /** 403 Forbidden (RBAC denies the list or watch). */
    public static KubernetesApiException forbidden() {
        return KubernetesApiException.fromStatus(
                403,
                status(
                        403,
                        "Forbidden",
                        "pods is forbidden: User \"system:serviceaccount:default:x\" cannot list resource \"pods\""),
                "GET",
                PATH);
    }

    /** 410 Expired for a too old resourceVersion, as a list answer or a watch ERROR event carries it. */
    public static KubernetesApiException expired(String requested, String oldest) {
        return KubernetesApiException.fromWatchError(
                status(410, "Expired", "too old resource version: " + requested + " (" + oldest + ")"), "GET", PATH);
    }

    /** The Status of a watch ERROR event for a too old resourceVersion. */
    public static Status expiredStatus(String requested, String oldest) {
        return status(410, "Expired", "too old resource version: " + requested + " (" + oldest + ")");
    }

    /** 410 Expired for a {@code continue} token the server no longer serves. */
    public static KubernetesApiException continueExpired() {
        return KubernetesApiException.fromStatus(
                410,
                status(
                        410,
                        "Expired",
                        "The provided continue parameter is too old to display a consistent list result. "
                                + "You can start a new list without the continue parameter."),
                "GET",
                PATH);
    }

    /** kube-apiserver's 504 for a list at a resourceVersion it has not reached (cause ResourceVersionTooLarge). */
    public static KubernetesApiException tooLargeResourceVersion(String requested, String current) {
        Status s =
                status(504, "Timeout", "Timeout: Too large resource version: " + requested + ", current: " + current);
        StatusCause cause = new StatusCause();
        cause.setReason("ResourceVersionTooLarge");
        cause.setMessage("Too large resource version");
        StatusDetails details = new StatusDetails();
        details.setCauses(List.of(cause));
        details.setRetryAfterSeconds(1);
        s.setDetails(details);
        return KubernetesApiException.fromStatus(504, s, "GET", PATH);
    }

    /** 422 for {@code sendInitialEvents} on a server that does not offer streaming lists. */
    public static KubernetesApiException streamingListRefused() {
        return KubernetesApiException.fromStatus(
                422,
                status(
                        422,
                        "Invalid",
                        "ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is "
                                + "forbidden for watch unless the WatchList feature gate is enabled"),
                "GET",
                PATH);
    }

    /** What the transport throws when nothing listens: an UncheckedIOException around a ConnectException. */
    public static UncheckedIOException connectionRefused() {
        ConnectException refused = new ConnectException("Connection refused");
        return new UncheckedIOException(
                "GET " + PATH + ": no answer from 127.0.0.1: ConnectException: " + "Connection refused", refused);
    }

    /**
     * A genuine {@link WatchIdleTimeoutException}, made by letting a real client {@link Watch} over a silent
     * stream hit a 1 ms idle timeout (the exception has no public constructor). Takes a few tens of milliseconds.
     */
    public static WatchIdleTimeoutException watchIdleTimeout() {
        CountDownLatch never = new CountDownLatch(1);
        InputStream silent = new InputStream() {
            @Override
            public int read() throws IOException {
                try {
                    never.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                throw new IOException("closed");
            }

            @Override
            public void close() {
                never.countDown();
            }
        };
        try (Watch<Status> watch = Watch.builder(silent, Status.class)
                .description("silent fake watch")
                .idleTimeout(Duration.ofMillis(1))
                .start()) {
            watch.next();
            throw new IllegalStateException("the silent watch ended without the idle rule firing");
        } catch (WatchIdleTimeoutException e) {
            return e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while making an idle timeout", e);
        }
    }

    static Status status(int code, String reason, String message) {
        Status s = new Status();
        s.setApiVersion("v1");
        s.setKind("Status");
        s.setMetadata(new ListMeta());
        s.setStatus("Failure");
        s.setCode(code);
        s.setReason(reason);
        s.setMessage(message);
        return s;
    }
}
