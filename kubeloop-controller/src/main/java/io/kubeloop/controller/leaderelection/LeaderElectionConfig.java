package io.kubeloop.controller.leaderelection;

import io.kubeloop.clock.Clock;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * What a {@link LeaderElector} campaigns for and how: the {@code coordination.k8s.io/v1} Lease (name and namespace),
 * this candidate's identity, and client-go's three durations with client-go's defaults.
 *
 * <ul>
 *   <li>{@link #leaseDuration()} (15 s): how long the other candidates wait, from the moment <em>they</em> last saw
 *       the Lease change, before they may take it over. A whole number of seconds: the Lease records it as
 *       {@code leaseDurationSeconds}.</li>
 *   <li>{@link #renewDeadline()} (10 s): how long the leader may go without a successful renewal before it gives
 *       up leadership, counted from the start of its last successful renewal.</li>
 *   <li>{@link #retryPeriod()} (2 s): how often candidates try to acquire (with client-go's jitter factor 1.2: every
 *       2 to 4.4 s) and the leader renews.</li>
 * </ul>
 *
 * <p>Invariant, checked by {@link Builder#build()} as client-go's {@code NewLeaderElector} checks it:
 * {@code leaseDuration > renewDeadline > 1.2 × retryPeriod > 0}. The first inequality is what keeps a leader that
 * cannot renew from still acting when another candidate may take over; the second leaves room for at least one
 * retry within the renew deadline. Immutable.
 */
public final class LeaderElectionConfig {

    /** client-go's (and controller-runtime's) default lease duration: 15 s. */
    public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(15);
    /** client-go's default renew deadline: 10 s. */
    public static final Duration DEFAULT_RENEW_DEADLINE = Duration.ofSeconds(10);
    /** client-go's default retry period: 2 s. */
    public static final Duration DEFAULT_RETRY_PERIOD = Duration.ofSeconds(2);
    /** client-go's {@code JitterFactor}: an acquire attempt waits retryPeriod × (1 + [0, 1.2)) after the last. */
    public static final double JITTER_FACTOR = 1.2;

    /** RFC 1123 subdomain: what kube-apiserver accepts as an object name. */
    private static final Pattern DNS_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    /** RFC 1123 label: what kube-apiserver accepts as a namespace name. */
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

    private final String leaseName;
    private final String namespace;
    private final String identity;
    private final Duration leaseDuration;
    private final Duration renewDeadline;
    private final Duration retryPeriod;
    private final boolean releaseOnCancel;
    private final Clock clock;

    private LeaderElectionConfig(Builder b) {
        this.leaseName = b.leaseName;
        this.namespace = b.namespace;
        this.identity = b.identity != null ? b.identity : defaultIdentity();
        this.leaseDuration = b.leaseDuration;
        this.renewDeadline = b.renewDeadline;
        this.retryPeriod = b.retryPeriod;
        this.releaseOnCancel = b.releaseOnCancel;
        this.clock = b.clock;
    }

    /**
     * A configuration for the Lease {@code leaseName} in {@code namespace}, with client-go's defaults for the rest.
     * Candidates that compete for the same leadership use the same Lease.
     */
    public static Builder builder(String leaseName, String namespace) {
        return new Builder(leaseName, namespace);
    }

    /**
     * The identity a candidate gets unless told otherwise: the {@code POD_NAME} environment variable (set it from
     * the downward API, {@code fieldRef: metadata.name}), else the host name, then {@code "_"} and a random UUID, as
     * controller-runtime does ({@code hostname_uuid}). The pod name makes {@code kubectl get lease} say which pod
     * leads; the suffix keeps two candidates apart even when they share a name (two electors in one process, or a
     * restarted process that must not inherit its predecessor's lease as if it had renewed it itself).
     */
    public static String defaultIdentity() {
        String base = System.getenv("POD_NAME");
        if (base == null || base.isBlank()) {
            try {
                base = InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException e) {
                base = "unknown-host";
            }
        }
        return base.strip() + "_" + UUID.randomUUID();
    }

    /** The Lease's name. */
    public String leaseName() {
        return leaseName;
    }

    /** The Lease's namespace. */
    public String namespace() {
        return namespace;
    }

    /** This candidate's identity, written to the Lease's {@code holderIdentity} while it leads. */
    public String identity() {
        return identity;
    }

    public Duration leaseDuration() {
        return leaseDuration;
    }

    public Duration renewDeadline() {
        return renewDeadline;
    }

    public Duration retryPeriod() {
        return retryPeriod;
    }

    /** Whether {@link LeaderElector#stop()} gives the Lease up (default true), so that a follower takes over at once. */
    public boolean releaseOnCancel() {
        return releaseOnCancel;
    }

    /** The clock of every wait and timeout of the elector; empty: the client's clock. */
    public Optional<Clock> clock() {
        return Optional.ofNullable(clock);
    }

    /**
     * How long one request to the API server about the Lease may take: {@code max(renewDeadline / 2, 1 s)}, as
     * client-go's {@code resourcelock.NewFromKubeconfig} sets the client's timeout. A leader's renewal is cut shorter
     * still when its renew deadline comes first.
     */
    public Duration requestTimeout() {
        Duration half = renewDeadline.dividedBy(2);
        return half.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : half;
    }

    @Override
    public String toString() {
        return "LeaderElectionConfig{lease=" + namespace + "/" + leaseName + ", identity=" + identity
                + ", leaseDuration=" + leaseDuration + ", renewDeadline=" + renewDeadline + ", retryPeriod="
                + retryPeriod + ", releaseOnCancel=" + releaseOnCancel + "}";
    }

    /** Builds a {@link LeaderElectionConfig}; {@link #build()} checks every value and names the one that is wrong. */
    public static final class Builder {
        private final String leaseName;
        private final String namespace;
        private String identity;
        private Duration leaseDuration = DEFAULT_LEASE_DURATION;
        private Duration renewDeadline = DEFAULT_RENEW_DEADLINE;
        private Duration retryPeriod = DEFAULT_RETRY_PERIOD;
        private boolean releaseOnCancel = true;
        private Clock clock;

        private Builder(String leaseName, String namespace) {
            this.leaseName = Objects.requireNonNull(leaseName, "leaseName");
            this.namespace = Objects.requireNonNull(namespace, "namespace");
        }

        /** This candidate's identity (default {@link LeaderElectionConfig#defaultIdentity()}); unique per candidate. */
        public Builder identity(String identity) {
            this.identity = Objects.requireNonNull(identity, "identity");
            return this;
        }

        /** Default 15 s; a whole number of seconds. */
        public Builder leaseDuration(Duration leaseDuration) {
            this.leaseDuration = Objects.requireNonNull(leaseDuration, "leaseDuration");
            return this;
        }

        /** Default 10 s. */
        public Builder renewDeadline(Duration renewDeadline) {
            this.renewDeadline = Objects.requireNonNull(renewDeadline, "renewDeadline");
            return this;
        }

        /** Default 2 s. */
        public Builder retryPeriod(Duration retryPeriod) {
            this.retryPeriod = Objects.requireNonNull(retryPeriod, "retryPeriod");
            return this;
        }

        /**
         * Whether {@link LeaderElector#stop()} releases the Lease (default true, as controller-runtime's managers are
         * usually configured): it writes client-go's release record (no holder, {@code leaseDurationSeconds: 1}) once
         * {@code onStoppedLeading} has returned, so a follower takes over on its next try instead of after the lease
         * duration.
         */
        public Builder releaseOnCancel(boolean releaseOnCancel) {
            this.releaseOnCancel = releaseOnCancel;
            return this;
        }

        /** The clock of every wait and timeout (default: the client's clock). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * The configuration.
         *
         * @throws IllegalArgumentException naming the value that is wrong and the values involved, e.g. {@code
         *     leaseDuration (PT10S) must be greater than renewDeadline (PT10S)}
         */
        public LeaderElectionConfig build() {
            if (!DNS_SUBDOMAIN.matcher(leaseName).matches() || leaseName.length() > 253) {
                throw new IllegalArgumentException("leaseName must be a DNS subdomain (lower-case letters, digits, '-'"
                        + " and '.', at most 253 characters), was \"" + leaseName + "\"");
            }
            if (!DNS_LABEL.matcher(namespace).matches() || namespace.length() > 63) {
                throw new IllegalArgumentException("namespace must be a DNS label (lower-case letters, digits and '-',"
                        + " at most 63 characters), was \"" + namespace + "\"");
            }
            if (identity != null && identity.isBlank()) {
                throw new IllegalArgumentException("identity must not be blank");
            }
            positive(leaseDuration, "leaseDuration");
            positive(renewDeadline, "renewDeadline");
            positive(retryPeriod, "retryPeriod");
            if (leaseDuration.toNanosPart() != 0) {
                throw new IllegalArgumentException("leaseDuration must be a whole number of seconds (the Lease records"
                        + " leaseDurationSeconds), was " + leaseDuration);
            }
            if (leaseDuration.compareTo(renewDeadline) <= 0) {
                throw new IllegalArgumentException("leaseDuration (" + leaseDuration
                        + ") must be greater than renewDeadline (" + renewDeadline
                        + "): a leader that cannot renew must stop before another candidate may take over");
            }
            Duration jittered = Duration.ofNanos((long) (JITTER_FACTOR * retryPeriod.toNanos()));
            if (renewDeadline.compareTo(jittered) <= 0) {
                throw new IllegalArgumentException("renewDeadline (" + renewDeadline
                        + ") must be greater than " + JITTER_FACTOR + " × retryPeriod (" + retryPeriod + " × "
                        + JITTER_FACTOR + " = " + jittered + ")");
            }
            return new LeaderElectionConfig(this);
        }

        private static void positive(Duration d, String what) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be greater than zero, was " + d);
            }
        }
    }
}
