package io.kubeloop.informer.reflector;

import io.fabric8.kubernetes.api.model.StatusCause;
import io.kubeloop.client.errors.ExpiredException;
import io.kubeloop.client.errors.KubernetesApiException;
import io.kubeloop.client.errors.TooManyRequestsException;
import io.kubeloop.client.watch.WatchDecodeException;
import io.kubeloop.client.watch.WatchException;
import java.io.IOException;
import java.net.ConnectException;
import java.util.Locale;

/** client-go's error classification for the reflector ({@code apierrors.IsResourceExpired} and friends). */
final class Failures {

    private static final int MAX_SUMMARY = 300;

    private Failures() {}

    /** 410 Expired or Gone: the resourceVersion (or continue token) is older than the server's history. */
    static boolean isExpired(Throwable e) {
        return e instanceof ExpiredException;
    }

    /**
     * The list asked for a resourceVersion the server has not reached: a Status cause
     * {@code ResourceVersionTooLarge}, or (older servers) a Timeout whose cause or message says
     * "Too large resource version".
     */
    static boolean isTooLargeResourceVersion(Throwable e) {
        if (!(e instanceof KubernetesApiException api)) {
            return false;
        }
        var details = api.status().getDetails();
        if (details != null && details.getCauses() != null) {
            for (StatusCause c : details.getCauses()) {
                if ("ResourceVersionTooLarge".equals(c.getReason())) {
                    return true;
                }
                if ("Timeout".equals(api.reason()) && "Too large resource version".equals(c.getMessage())) {
                    return true;
                }
            }
        }
        return "Timeout".equals(api.reason()) && api.serverMessage().contains("Too large resource version");
    }

    /** The request found nothing listening (client-go's {@code utilnet.IsConnectionRefused}). */
    static boolean isConnectionRefused(Throwable e) {
        Throwable t = e;
        for (int depth = 0; t != null && depth < 8; depth++, t = t.getCause()) {
            if (t instanceof ConnectException) {
                return true;
            }
            String m = t.getMessage();
            if (m != null && m.toLowerCase(Locale.ROOT).contains("connection refused")) {
                return true;
            }
        }
        return false;
    }

    static boolean isTooManyRequests(Throwable e) {
        return e instanceof TooManyRequestsException;
    }

    /** A 5xx that carries Retry-After: the server said the same request may succeed later. */
    static boolean isRetryableServerError(Throwable e) {
        return e instanceof KubernetesApiException api
                && api.code() >= 500
                && api.code() <= 599
                && api.retryAfterSeconds().isPresent();
    }

    /** The seconds the server asked to wait (429 or 5xx), or 0. */
    static long retryAfterSeconds(Throwable e) {
        if (e instanceof KubernetesApiException api && (api.code() == 429 || api.code() >= 500)) {
            return api.retryAfterSeconds().orElse(0);
        }
        return 0;
    }

    /**
     * The watch's connection broke (reset, closed, unexpected end) rather than the server sending something bad:
     * client-go treats a probable EOF as a clean end and watches again without relisting.
     */
    static boolean isBrokenStream(Throwable e) {
        if (!(e instanceof WatchException) || e instanceof WatchDecodeException) {
            return false;
        }
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            if (t instanceof IOException) {
                return true;
            }
        }
        return false;
    }

    /** {@code ExpiredException: GET /api/v1/pods: 410 Expired: too old resource version: 5 (9)}, bounded. */
    static String summary(Throwable e) {
        String m = e.getMessage();
        String s = e.getClass().getSimpleName() + (m == null || m.isEmpty() ? "" : ": " + m.replace('\n', ' '));
        if (e.getCause() != null
                && (m == null || !m.contains(String.valueOf(e.getCause().getMessage())))) {
            s += " (caused by " + e.getCause().getClass().getSimpleName() + ")";
        }
        return s.length() <= MAX_SUMMARY ? s : s.substring(0, MAX_SUMMARY) + "…";
    }
}
