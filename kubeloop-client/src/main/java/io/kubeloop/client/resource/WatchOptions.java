package io.kubeloop.client.resource;

/**
 * The query of a watch: selectors, where to start and what the server should send. Immutable;
 * {@link #none()} watches every change from now on.
 *
 * <pre>{@code
 * WatchOptions.builder().resourceVersion(list.resourceVersion()).allowWatchBookmarks(true).build()
 * WatchOptions.builder().sendInitialEvents(true).resourceVersionMatch("NotOlderThan").allowWatchBookmarks(true).build()
 * }</pre>
 *
 * @param labelSelector e.g. {@code app=web}; null for none
 * @param fieldSelector e.g. {@code metadata.name=x}; null for none
 * @param resourceVersion the version to watch from (events after it); null for "from now", {@code "0"} for any
 * @param resourceVersionMatch {@code NotOlderThan} or {@code Exact}; null for the server's default
 * @param timeoutSeconds the server ends the watch cleanly after this long; null for the server's default
 * @param allowWatchBookmarks ask for BOOKMARK events (the server sends them when it chooses)
 * @param sendInitialEvents a streaming list: ADDED events for every object first, then a bookmark with the
 *     {@code k8s.io/initial-events-end} annotation (the server wants {@code allowWatchBookmarks} and
 *     {@code resourceVersionMatch=NotOlderThan} beside it); null leaves the parameter out
 */
public record WatchOptions(
        String labelSelector,
        String fieldSelector,
        String resourceVersion,
        String resourceVersionMatch,
        Integer timeoutSeconds,
        boolean allowWatchBookmarks,
        Boolean sendInitialEvents) {

    private static final WatchOptions NONE = new WatchOptions(null, null, null, null, null, false, null);

    public WatchOptions {
        if (timeoutSeconds != null && timeoutSeconds < 0) {
            throw new IllegalArgumentException("timeoutSeconds must be ≥ 0: " + timeoutSeconds);
        }
        if (resourceVersionMatch != null
                && !resourceVersionMatch.equals("NotOlderThan")
                && !resourceVersionMatch.equals("Exact")) {
            throw new IllegalArgumentException(
                    "resourceVersionMatch is NotOlderThan or Exact: " + resourceVersionMatch);
        }
    }

    public static WatchOptions none() {
        return NONE;
    }

    public static Builder builder() {
        return new Builder(NONE);
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** The watch query: {@code ?watch=true&...}. */
    Query toQuery() {
        Query q = new Query().add("watch", "true");
        q.add("labelSelector", labelSelector);
        q.add("fieldSelector", fieldSelector);
        q.add("resourceVersion", resourceVersion);
        q.add("resourceVersionMatch", resourceVersionMatch);
        if (timeoutSeconds != null) {
            q.add("timeoutSeconds", timeoutSeconds.toString());
        }
        if (allowWatchBookmarks) {
            q.add("allowWatchBookmarks", "true");
        }
        if (sendInitialEvents != null) {
            q.add("sendInitialEvents", sendInitialEvents.toString());
        }
        return q;
    }

    @Override
    public String toString() {
        return "WatchOptions{"
                + toQuery().toString().substring("?watch=true".length()).replaceFirst("^&", "") + "}";
    }

    public static final class Builder {
        private String labelSelector;
        private String fieldSelector;
        private String resourceVersion;
        private String resourceVersionMatch;
        private Integer timeoutSeconds;
        private boolean allowWatchBookmarks;
        private Boolean sendInitialEvents;

        private Builder(WatchOptions o) {
            labelSelector = o.labelSelector;
            fieldSelector = o.fieldSelector;
            resourceVersion = o.resourceVersion;
            resourceVersionMatch = o.resourceVersionMatch;
            timeoutSeconds = o.timeoutSeconds;
            allowWatchBookmarks = o.allowWatchBookmarks;
            sendInitialEvents = o.sendInitialEvents;
        }

        public Builder labelSelector(String selector) {
            this.labelSelector = selector;
            return this;
        }

        public Builder fieldSelector(String selector) {
            this.fieldSelector = selector;
            return this;
        }

        public Builder resourceVersion(String resourceVersion) {
            this.resourceVersion = resourceVersion;
            return this;
        }

        /** {@code NotOlderThan} or {@code Exact}. */
        public Builder resourceVersionMatch(String match) {
            this.resourceVersionMatch = match;
            return this;
        }

        public Builder timeoutSeconds(Integer seconds) {
            this.timeoutSeconds = seconds;
            return this;
        }

        public Builder allowWatchBookmarks(boolean allow) {
            this.allowWatchBookmarks = allow;
            return this;
        }

        public Builder sendInitialEvents(Boolean send) {
            this.sendInitialEvents = send;
            return this;
        }

        public WatchOptions build() {
            return new WatchOptions(
                    labelSelector,
                    fieldSelector,
                    resourceVersion,
                    resourceVersionMatch,
                    timeoutSeconds,
                    allowWatchBookmarks,
                    sendInitialEvents);
        }
    }
}
