package io.kubeloop.client.resource;

import java.util.Objects;

/**
 * The query of a list (and of {@code deleteCollection}): selectors, a page size and {@code continue} token, and
 * which resourceVersion to read at. Immutable; {@link #none()} lists everything, current.
 *
 * <pre>{@code
 * ListOptions.builder().labelSelector("app=web").fieldSelector("status.phase=Running").limit(500).build()
 * }</pre>
 *
 * @param labelSelector e.g. {@code app=web,tier!=db}; null for none
 * @param fieldSelector e.g. {@code metadata.name=x}; null for none
 * @param limit the page size; 0 for no limit
 * @param continueToken the {@code continue} token of the previous page; null for the first page
 * @param resourceVersion null for the newest; {@code "0"} for any (the server's cache); or an exact version
 * @param resourceVersionMatch {@code NotOlderThan} or {@code Exact}; null for the server's default
 * @param timeoutSeconds the server-side bound of the call; null for the server's default
 */
public record ListOptions(
        String labelSelector,
        String fieldSelector,
        long limit,
        String continueToken,
        String resourceVersion,
        String resourceVersionMatch,
        Integer timeoutSeconds) {

    private static final ListOptions NONE = new ListOptions(null, null, 0, null, null, null, null);

    public ListOptions {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be ≥ 0: " + limit);
        }
        if (timeoutSeconds != null && timeoutSeconds < 0) {
            throw new IllegalArgumentException("timeoutSeconds must be ≥ 0: " + timeoutSeconds);
        }
    }

    public static ListOptions none() {
        return NONE;
    }

    public static Builder builder() {
        return new Builder(NONE);
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    ListOptions withPage(long pageLimit, String token) {
        return new ListOptions(
                labelSelector, fieldSelector, pageLimit, token, resourceVersion, resourceVersionMatch, timeoutSeconds);
    }

    void appendTo(Query q) {
        q.add("labelSelector", labelSelector);
        q.add("fieldSelector", fieldSelector);
        if (limit > 0) {
            q.add("limit", Long.toString(limit));
        }
        q.add("continue", continueToken);
        q.add("resourceVersion", resourceVersion);
        q.add("resourceVersionMatch", resourceVersionMatch);
        if (timeoutSeconds != null) {
            q.add("timeoutSeconds", timeoutSeconds.toString());
        }
    }

    public static final class Builder {
        private String labelSelector;
        private String fieldSelector;
        private long limit;
        private String continueToken;
        private String resourceVersion;
        private String resourceVersionMatch;
        private Integer timeoutSeconds;

        private Builder(ListOptions o) {
            labelSelector = o.labelSelector;
            fieldSelector = o.fieldSelector;
            limit = o.limit;
            continueToken = o.continueToken;
            resourceVersion = o.resourceVersion;
            resourceVersionMatch = o.resourceVersionMatch;
            timeoutSeconds = o.timeoutSeconds;
        }

        public Builder labelSelector(String selector) {
            this.labelSelector = selector;
            return this;
        }

        public Builder fieldSelector(String selector) {
            this.fieldSelector = selector;
            return this;
        }

        public Builder limit(long limit) {
            this.limit = limit;
            return this;
        }

        public Builder continueToken(String token) {
            this.continueToken = token;
            return this;
        }

        public Builder resourceVersion(String resourceVersion) {
            this.resourceVersion = resourceVersion;
            return this;
        }

        /** {@code NotOlderThan} or {@code Exact}. */
        public Builder resourceVersionMatch(String match) {
            if (match != null && !match.equals("NotOlderThan") && !match.equals("Exact")) {
                throw new IllegalArgumentException("resourceVersionMatch is NotOlderThan or Exact: " + match);
            }
            this.resourceVersionMatch = match;
            return this;
        }

        public Builder timeoutSeconds(Integer seconds) {
            this.timeoutSeconds = seconds;
            return this;
        }

        public ListOptions build() {
            return new ListOptions(
                    labelSelector,
                    fieldSelector,
                    limit,
                    continueToken,
                    resourceVersion,
                    resourceVersionMatch,
                    timeoutSeconds);
        }
    }

    @Override
    public String toString() {
        Query q = new Query();
        appendTo(q);
        return "ListOptions" + (q.isEmpty() ? "{}" : "{" + q.toString().substring(1) + "}");
    }

    static String requireText(String value, String what) {
        Objects.requireNonNull(value, what);
        if (value.isEmpty()) {
            throw new IllegalArgumentException(what + " is empty");
        }
        return value;
    }
}
