package io.kubeloop.controller.leaderelection;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.errors.AlreadyExistsException;
import io.kubeloop.client.errors.ConflictException;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.clock.Clock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lease-based leader election: client-go's {@code tools/leaderelection} algorithm on a {@code coordination.k8s.io/v1}
 * Lease, with its defaults (lease 15 s, renew deadline 10 s, retry 2 s, jitter 1.2), for running one active replica of
 * a controller among several.
 *
 * <pre>{@code
 * LeaderElector elector = LeaderElector.builder(client, LeaderElectionConfig.builder("my-operator", "ops").build())
 *         .callbacks(LeaderCallbacks.of(controllers::start, controllers::stop))
 *         .build();
 * elector.start();   // campaigns on its own virtual thread
 * ...
 * elector.stop();    // stops leading, runs onStoppedLeading, then releases the Lease
 * }</pre>
 *
 * <p>The algorithm (client-go's {@code tryAcquireOrRenew}): a candidate reads the Lease; if the Lease names another
 * holder and has not expired, it waits {@code retryPeriod × (1 + [0, 1.2))} and tries again; otherwise it writes its
 * own record (holder, {@code leaseDurationSeconds}, acquire and renew times, {@code leaseTransitions} + 1 when the
 * holder changes), conditional on the {@code resourceVersion} it read: a 409 means another candidate wrote first and
 * this round is lost. The leader renews every {@code retryPeriod}, first optimistically with the resourceVersion of
 * its last write, then by reading and writing again.
 *
 * <p>Invariants:
 * <ul>
 *   <li><b>Expiry is judged on this process's clock:</b> a Lease expires {@code leaseDurationSeconds} after this
 *       candidate <em>observed</em> its record change, never by comparing the record's {@code renewTime} with the
 *       local clock, so clock skew between machines does not matter (a different clock <em>rate</em> would).</li>
 *   <li><b>A leader stops before anyone else may start:</b> leadership ends, and {@link #isLeader()} turns false, at
 *       the latest {@code renewDeadline} after the start of the last successful renewal (a timer on the clock sees to
 *       it, whatever the renewing thread is doing; a request in flight is cut off then). Others may take over only
 *       {@code leaseDuration} after they saw that renewal, which happened after it started; since {@code
 *       leaseDuration > renewDeadline} the two never overlap (assuming clocks that run at the same rate). client-go
 *       counts its renew deadline from the start of the current round of retries instead, so a slow last renewal can
 *       let its leader outlive the lease; and it keeps leading while it sees another holder until the deadline, where
 *       this elector stops at once.</li>
 *   <li><b>Every request about the Lease has a timeout</b> of {@link LeaderElectionConfig#requestTimeout()}
 *       ({@code max(renewDeadline / 2, 1 s)}), on the clock, so a hung connection cannot stall the campaign.</li>
 *   <li><b>Losing is not the end:</b> after losing leadership the elector campaigns again; it never exits the process.
 *       After {@link #stop()} it can be {@link #start() started} again.</li>
 *   <li>Callbacks: see {@link LeaderCallbacks}.</li>
 * </ul>
 *
 * <p>Like client-go's, this election does not fence: a leader that is paused (a long GC pause, a frozen VM) for longer
 * than the lease may act once more after it wakes. Writes that must never come from two leaders need their own
 * guard (a resourceVersion precondition, say).
 *
 * <p>Metrics (given a {@link Builder#meterRegistry registry}): {@code leader_election_master_status{name}} (1 while
 * leading, else 0; {@code name} is the Lease's name, as controller-runtime's) and {@code
 * leader_election_transitions_total{name}} (every change of that status). Logs go to this class's logger: INFO on
 * every change ({@code became leader}, {@code lost leadership}, {@code new leader observed: X}), WARN when requests
 * about the Lease start failing.
 *
 * <p>Thread-safe. One elector per Lease per registry (the meters are keyed by the Lease's name).
 */
public final class LeaderElector implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaderElector.class);

    private final LeaderElectionConfig config;
    private final LeaderCallbacks callbacks;
    private final Clock clock;
    private final ResourceClient<Lease> leases;
    private final String identity;
    private final String description;
    private final long leaseDurationNanos;
    private final long renewDeadlineNanos;
    private final long retryPeriodNanos;
    private final long requestTimeoutNanos;

    private final AtomicInteger masterStatus = new AtomicInteger();
    private final Counter transitions;

    /** Guards the state below; the campaign thread waits on {@code wake}. Never held across a request. */
    private final ReentrantLock lock = new ReentrantLock();

    private final Condition wake = lock.newCondition();

    /** Guarded by {@code lock}: the running campaign, or the last one (stopped), or null before the first start. */
    private Campaign campaign;
    /**
     * Guarded by {@code lock}: whether this candidate acts as leader. Only true while {@code campaign} runs and its
     * renew deadline has not passed; turned false by the watchdog, a lost renewal or {@link #stop()}.
     */
    private boolean leading;
    /** Guarded by {@code lock}: the Lease's record as last observed (read or written), or null. */
    private LeaderElectionRecord observedRecord;
    /** Guarded by {@code lock}: this clock's nanoTime when {@code observedRecord} last changed. */
    private long observedTimeNanos;
    /** Guarded by {@code lock}: the Lease as last read or written: its resourceVersion makes writes conditional. */
    private Lease lease;
    /** Guarded by {@code lock}: the holder last reported to onNewLeader ("" = none yet). */
    private String reportedLeader = "";
    /** Guarded by {@code lock}: wall time of the last answer from the API server about the Lease, or null. */
    private Instant lastContact;
    /** Guarded by {@code lock}: the last failure of a request about the Lease, cleared by a success; or null. */
    private String lastError;

    private LeaderElector(Builder b) {
        this.config = b.config;
        this.callbacks = b.callbacks;
        this.clock = config.clock().orElseGet(b.client::clock);
        this.leases = b.client.resources(Lease.class).inNamespace(config.namespace());
        this.identity = config.identity();
        this.description = config.namespace() + "/" + config.leaseName();
        this.leaseDurationNanos = config.leaseDuration().toNanos();
        this.renewDeadlineNanos = config.renewDeadline().toNanos();
        this.retryPeriodNanos = config.retryPeriod().toNanos();
        this.requestTimeoutNanos = config.requestTimeout().toNanos();
        MeterRegistry registry = b.meterRegistry != null ? b.meterRegistry : new CompositeMeterRegistry();
        Gauge.builder("leader.election.master.status", masterStatus, AtomicInteger::get)
                .description("1 while this candidate leads, 0 otherwise")
                .tag("name", config.leaseName())
                .strongReference(true)
                .register(registry);
        this.transitions = Counter.builder("leader.election.transitions")
                .description("changes of leader_election_master_status: became leader or stopped leading")
                .tag("name", config.leaseName())
                .register(registry);
    }

    /** An elector for {@code config}'s Lease, talking to the API server through {@code client}. */
    public static Builder builder(KubernetesClient client, LeaderElectionConfig config) {
        return new Builder(client, config);
    }

    /**
     * Starts campaigning on a virtual thread of its own ({@code kubeloop-leader-election-<lease>-<identity>}) and
     * returns at once. After {@link #stop()} the elector may be started again.
     *
     * @throws IllegalStateException if it is already running
     */
    public void start() {
        Campaign previous;
        lock.lock();
        try {
            if (campaign != null && campaign.running) {
                throw new IllegalStateException("leader elector for " + description + " is already running");
            }
            previous = campaign;
        } finally {
            lock.unlock();
        }
        if (previous != null && previous.dispatcher.isDispatcherThread()) {
            throw new IllegalStateException("start() of the leader elector for " + description
                    + " was called from its own callback: the campaign that runs the callback has not ended yet");
        }
        if (previous != null) {
            previous.join(); // a stop() from a callback does not wait for the campaign to end: this start does
        }
        lock.lock();
        try {
            if (campaign != null && campaign.running) {
                throw new IllegalStateException("leader elector for " + description + " is already running");
            }
            // A new campaign observes the Lease afresh.
            observedRecord = null;
            lease = null;
            reportedLeader = "";
            lastError = null;
            campaign = new Campaign();
            campaign.start();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops campaigning: leadership ends now ({@link #isLeader()} is false when this returns, or sooner), {@code
     * onStoppedLeading} runs if this candidate led, and once it has returned the Lease is released if so configured
     * ({@link LeaderElectionConfig#releaseOnCancel()}). Returns when all that is done, or, should {@code
     * onStoppedLeading} not return within the lease duration, without releasing (the Lease then expires on its own).
     * Called from a callback, it does not wait. Idempotent.
     */
    public void stop() {
        Campaign c;
        lock.lock();
        try {
            c = campaign;
            if (c == null || !c.running) {
                return;
            }
            c.running = false;
            if (leading) {
                loseLeadership(c, "the elector was stopped");
            }
            wake.signalAll(); // a request in flight is abandoned (and interrupted) by the campaign thread
        } finally {
            lock.unlock();
        }
        if (!c.dispatcher.isDispatcherThread()) {
            c.join();
        }
    }

    /** {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    /** Whether this candidate leads now (acts as leader). Readiness and work that only a leader does check it. */
    public boolean isLeader() {
        lock.lock();
        try {
            return leading;
        } finally {
            lock.unlock();
        }
    }

    /** Whether the elector campaigns (between {@link #start()} and {@link #stop()}). */
    public boolean isRunning() {
        lock.lock();
        try {
            return campaign != null && campaign.running;
        } finally {
            lock.unlock();
        }
    }

    /** The Lease's holder as this candidate last observed it; empty when none is known (not read yet, or released). */
    public Optional<String> leaderIdentity() {
        lock.lock();
        try {
            return observedRecord == null || observedRecord.holderIdentity().isEmpty()
                    ? Optional.empty()
                    : Optional.of(observedRecord.holderIdentity());
        } finally {
            lock.unlock();
        }
    }

    /** This candidate's identity. */
    public String identity() {
        return identity;
    }

    /** What this elector knows now, for health and readiness checks and for status pages. */
    public Status status() {
        lock.lock();
        try {
            return new Status(
                    campaign != null && campaign.running,
                    leading,
                    observedRecord == null ? "" : observedRecord.holderIdentity(),
                    lastContact,
                    lastError);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "LeaderElector{lease=" + description + ", identity=" + identity + ", leader=" + isLeader() + "}";
    }

    /**
     * A snapshot of an elector's state.
     *
     * @param running between {@link #start()} and {@link #stop()}
     * @param leader this candidate leads
     * @param holderIdentity the Lease's holder as last observed ("" when none is known)
     * @param lastContact wall time of the last answer from the API server about the Lease (null: none yet); a
     *     candidate that has not heard from the server for long cannot take over when the leader goes away
     * @param lastError the last failure of a request about the Lease since the last success, or null
     */
    public record Status(
            boolean running, boolean leader, String holderIdentity, Instant lastContact, String lastError) {}

    // ---------------------------------------------------------------------------------------------------------------
    // The campaign

    /** One run between start() and stop(): its thread, its callbacks' thread, and its leader's renew deadline. */
    private final class Campaign {
        /** Guarded by {@code lock}: false once stop() was called. */
        boolean running = true;
        /** Guarded by {@code lock}: nanoTime by which a renewal must succeed while leading. */
        long renewDeadline;
        /** Guarded by {@code lock}: the timer that ends leadership at {@code renewDeadline}. */
        Clock.Scheduled watchdog;

        final CallbackDispatcher dispatcher =
                new CallbackDispatcher("kubeloop-leader-election-" + config.leaseName() + "-callbacks", log);
        final Thread thread = Thread.ofVirtual()
                .name("kubeloop-leader-election-" + config.leaseName() + "-" + identity)
                .unstarted(() -> run(this));

        void start() {
            thread.start();
        }

        void join() {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run(Campaign c) {
        log.info("attempting to acquire leader lease {} as {}", description, identity);
        try {
            while (acquire(c)) {
                renew(c);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            log.error("leader election for {} failed unexpectedly; it stops campaigning", description, e);
            lock.lock();
            try {
                c.running = false;
            } finally {
                lock.unlock();
            }
        } finally {
            finish(c);
        }
    }

    /** Tries until this candidate leads (true) or the campaign is stopped (false); client-go's {@code acquire}. */
    private boolean acquire(Campaign c) throws InterruptedException {
        while (true) {
            if (!running(c)) {
                return false;
            }
            long attemptStart = clock.nanoTime();
            boolean acquired = tryAcquireOrRenew(c, Long.MAX_VALUE);
            maybeReportTransition(c);
            if (acquired) {
                lock.lock();
                try {
                    if (!c.running) {
                        return false; // finish() releases what was just acquired
                    }
                    if (attemptStart + renewDeadlineNanos - clock.nanoTime() > 0) {
                        becomeLeader(c, attemptStart);
                        return true;
                    }
                    // The round took longer than the renew deadline: leading now could outlast what others
                    // saw. Renew at once instead (the fast path); leadership starts with a renewal in time.
                    continue;
                } finally {
                    lock.unlock();
                }
            }
            log.debug("failed to acquire lease {}", description);
            double jitter = ThreadLocalRandom.current().nextDouble() * LeaderElectionConfig.JITTER_FACTOR;
            if (!sleep(c, retryPeriodNanos + (long) (jitter * retryPeriodNanos))) {
                return false;
            }
        }
    }

    /**
     * Renews every retry period until leadership is lost or the campaign stopped; client-go's {@code renew} (wait.Until
     * around PollUntilContextTimeout), with the deadline counted from the start of the last successful renewal.
     */
    private void renew(Campaign c) throws InterruptedException {
        while (true) {
            if (!sleep(c, retryPeriodNanos)) {
                return;
            }
            while (true) { // retry until renewed or the deadline passes
                long attemptStart;
                long deadline;
                lock.lock();
                try {
                    if (!c.running || !leading) {
                        return;
                    }
                    attemptStart = clock.nanoTime();
                    deadline = c.renewDeadline;
                    if (deadline - attemptStart <= 0) {
                        loseLeadership(c, "failed to renew within the renew deadline (" + config.renewDeadline() + ")");
                        return;
                    }
                } finally {
                    lock.unlock();
                }
                boolean renewed = tryAcquireOrRenew(c, deadline);
                maybeReportTransition(c);
                lock.lock();
                try {
                    if (!c.running || !leading) {
                        return; // stopped, or the watchdog ended it meanwhile
                    }
                    if (renewed) {
                        extendDeadline(c, attemptStart + renewDeadlineNanos);
                        log.debug("renewed lease {}", description);
                        break;
                    }
                    if (observedRecord != null
                            && !observedRecord.holderIdentity().isEmpty()
                            && !observedRecord.holderIdentity().equals(identity)) {
                        loseLeadership(c, "the lease is held by " + observedRecord.holderIdentity());
                        return;
                    }
                } finally {
                    lock.unlock();
                }
                long untilDeadline = deadline - clock.nanoTime();
                if (!sleep(c, Math.min(retryPeriodNanos, untilDeadline))) {
                    return;
                }
            }
        }
    }

    /** Ends a campaign: leadership, the callbacks (awaited), then the release; runs on the campaign's thread. */
    private void finish(Campaign c) {
        lock.lock();
        try {
            c.running = false;
            if (leading) {
                loseLeadership(c, "the elector was stopped");
            }
        } finally {
            lock.unlock();
        }
        c.dispatcher.close();
        boolean callbacksDone;
        try {
            callbacksDone = c.dispatcher.awaitFinished(clock, clock.nanoTime() + leaseDurationNanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            callbacksDone = false;
        }
        if (!config.releaseOnCancel()) {
            return;
        }
        if (!callbacksDone) {
            log.warn(
                    "not releasing lease {}: a leader election callback is still running after {}; the lease expires"
                            + " on its own instead, so that no other candidate leads while it runs",
                    description,
                    config.leaseDuration());
            return;
        }
        release(c);
    }

    /** client-go's {@code release}, except that it re-reads the Lease and leaves alone one held by someone else. */
    private void release(Campaign c) {
        lock.lock();
        try {
            if (observedRecord == null || !observedRecord.holderIdentity().equals(identity)) {
                return;
            }
        } finally {
            lock.unlock();
        }
        Optional<Lease> current;
        try {
            current = call(c, "get", () -> leases.get(config.leaseName()), Long.MAX_VALUE, false);
        } catch (RequestFailed e) {
            log.warn("cannot release lease {}: {}", description, e.getMessage());
            return;
        }
        if (current.isEmpty()) {
            return;
        }
        LeaderElectionRecord held = LeaderElectionRecord.of(current.get());
        if (!held.holderIdentity().equals(identity)) {
            log.info("not releasing lease {}: it is held by {}", description, held.holderIdentity());
            return;
        }
        Instant now = clock.now();
        LeaderElectionRecord released = new LeaderElectionRecord("", 1, now, now, held.leaderTransitions());
        Lease update = withRecord(current.get(), released);
        try {
            Lease written = call(c, "update", () -> leases.update(update), Long.MAX_VALUE, false);
            setObservedRecord(released, written);
            log.info("released lease {}", description);
        } catch (RequestFailed e) {
            log.warn("failed to release lease {}: {}", description, e.getMessage());
        }
    }

    /**
     * One round of client-go's {@code tryAcquireOrRenew}: true if this candidate holds the Lease after it. Requests end
     * by {@code deadline} (nanoTime) at the latest.
     */
    private boolean tryAcquireOrRenew(Campaign c, long deadline) throws InterruptedException {
        long now = clock.nanoTime();
        Instant wallNow = clock.now();
        LeaderElectionRecord desired =
                new LeaderElectionRecord(identity, (int) config.leaseDuration().toSeconds(), wallNow, wallNow, 0);

        // 1. The leader's fast path: update optimistically, assuming the Lease is as it last saw it.
        Lease known;
        LeaderElectionRecord knownRecord;
        lock.lock();
        try {
            known = lease;
            knownRecord = observedRecord;
        } finally {
            lock.unlock();
        }
        if (known != null && isLeaderByRecord(knownRecord) && isLeaseValid(now)) {
            LeaderElectionRecord renewed =
                    desired.withAcquireTimeAndTransitions(knownRecord.acquireTime(), knownRecord.leaderTransitions());
            Lease update = withRecord(known, renewed);
            try {
                Lease written = call(c, "update", () -> leases.update(update), deadline, true);
                setObservedRecord(renewed, written);
                return true;
            } catch (RequestFailed e) {
                log.debug(
                        "failed to update lease {} optimistically, falling back to the slow path: {}",
                        description,
                        e.getMessage());
            }
        }

        // 2. Read the Lease, or create it.
        Optional<Lease> got;
        try {
            got = call(c, "get", () -> leases.get(config.leaseName()), deadline, true);
        } catch (RequestFailed e) {
            failed("error retrieving lease " + description, e);
            return false;
        }
        if (got.isEmpty()) {
            Lease create = withRecord(
                    new Lease(
                            "coordination.k8s.io/v1",
                            "Lease",
                            new ObjectMetaBuilder()
                                    .withName(config.leaseName())
                                    .withNamespace(config.namespace())
                                    .build(),
                            null),
                    desired);
            try {
                Lease created = call(c, "create", () -> leases.create(create), deadline, true);
                setObservedRecord(desired, created);
                return true;
            } catch (RequestFailed e) {
                failed("error initially creating lease " + description, e);
                return false;
            }
        }

        // 3. Lease read: remember it; restart the expiry count only if its record changed.
        LeaderElectionRecord old = LeaderElectionRecord.of(got.get());
        boolean heldByOther;
        boolean leaderByRecord;
        lock.lock();
        try {
            lease = got.get();
            contact();
            if (!old.equals(observedRecord)) {
                observedRecord = old;
                observedTimeNanos = clock.nanoTime();
            }
            leaderByRecord = isLeaderByRecord(observedRecord);
            heldByOther = !old.holderIdentity().isEmpty() && isLeaseValid(now) && !leaderByRecord;
        } finally {
            lock.unlock();
        }
        if (heldByOther) {
            log.debug("lease {} is held by {} and has not yet expired", description, old.holderIdentity());
            return false;
        }

        // 4. Take it (or renew it through the slow path).
        LeaderElectionRecord next = leaderByRecord
                ? desired.withAcquireTimeAndTransitions(old.acquireTime(), old.leaderTransitions())
                : desired.withAcquireTimeAndTransitions(wallNow, old.leaderTransitions() + 1);
        Lease update = withRecord(got.get(), next);
        try {
            Lease written = call(c, "update", () -> leases.update(update), deadline, true);
            setObservedRecord(next, written);
            return true;
        } catch (RequestFailed e) {
            failed("failed to update lease " + description, e);
            return false;
        }
    }

    /** Under no lock: the record says this candidate holds the Lease (client-go's {@code IsLeader}). */
    private boolean isLeaderByRecord(LeaderElectionRecord record) {
        return record != null && record.holderIdentity().equals(identity);
    }

    /** client-go's {@code isLeaseValid}: observed change + the record's lease duration is after {@code now}. */
    private boolean isLeaseValid(long now) {
        lock.lock();
        try {
            return observedRecord != null
                    && observedTimeNanos + observedRecord.leaseDurationSeconds() * 1_000_000_000L - now > 0;
        } finally {
            lock.unlock();
        }
    }

    private void setObservedRecord(LeaderElectionRecord record, Lease written) {
        lock.lock();
        try {
            observedRecord = record;
            observedTimeNanos = clock.nanoTime();
            lease = written;
            contact();
        } finally {
            lock.unlock();
        }
    }

    /** Under {@code lock}: an answer came from the server. */
    private void contact() {
        lastContact = clock.now();
        if (lastError != null) {
            log.info("requests about lease {} succeed again", description);
            lastError = null;
        }
    }

    private void failed(String what, RequestFailed e) {
        if (e.abandoned) {
            return;
        }
        if (e.conflict) {
            log.debug("{}: {} (another candidate wrote first: this round is lost)", what, e.getMessage());
            lock.lock();
            try {
                contact();
            } finally {
                lock.unlock();
            }
            return;
        }
        lock.lock();
        try {
            if (lastError == null) {
                log.warn(
                        "{}: {} (retrying every {}; further failures are logged at DEBUG)",
                        what,
                        e.getMessage(),
                        config.retryPeriod());
            } else {
                log.debug("{}: {}", what, e.getMessage());
            }
            lastError = what + ": " + e.getMessage();
        } finally {
            lock.unlock();
        }
    }

    /** client-go's {@code maybeReportTransition}: the observed holder changed; tell onNewLeader (not for ""). */
    private void maybeReportTransition(Campaign c) {
        lock.lock();
        try {
            String holder = observedRecord == null ? "" : observedRecord.holderIdentity();
            if (holder.equals(reportedLeader)) {
                return;
            }
            reportedLeader = holder;
            if (holder.isEmpty()) {
                return;
            }
            log.info("new leader observed for lease {}: {}", description, holder);
            c.dispatcher.submit("onNewLeader", () -> callbacks.onNewLeader(holder));
        } finally {
            lock.unlock();
        }
    }

    /** Under {@code lock}. */
    private void becomeLeader(Campaign c, long attemptStart) {
        leading = true;
        masterStatus.set(1);
        transitions.increment();
        extendDeadline(c, attemptStart + renewDeadlineNanos);
        log.info("became leader: {} holds lease {}", identity, description);
        c.dispatcher.submit("onStartedLeading", callbacks::onStartedLeading);
    }

    /** Under {@code lock}: the next renewal must succeed by {@code deadline}, else leadership ends then. */
    private void extendDeadline(Campaign c, long deadline) {
        c.renewDeadline = deadline;
        if (c.watchdog != null) {
            c.watchdog.cancel();
        }
        c.watchdog = clock.schedule(() -> watchdog(c), Duration.ofNanos(deadline - clock.nanoTime()));
    }

    /** On the clock's thread: ends leadership at the renew deadline, whatever the campaign thread is doing. */
    private void watchdog(Campaign c) {
        lock.lock();
        try {
            if (campaign == c && leading && c.renewDeadline - clock.nanoTime() <= 0) {
                loseLeadership(c, "failed to renew within the renew deadline (" + config.renewDeadline() + ")");
                wake.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Under {@code lock}: leadership ends now; onStoppedLeading is queued. */
    private void loseLeadership(Campaign c, String why) {
        leading = false;
        masterStatus.set(0);
        transitions.increment();
        if (c.watchdog != null) {
            c.watchdog.cancel();
            c.watchdog = null;
        }
        log.info("lost leadership: {} no longer leads lease {}: {}", identity, description, why);
        c.dispatcher.submit("onStoppedLeading", callbacks::onStoppedLeading);
    }

    private boolean running(Campaign c) {
        lock.lock();
        try {
            return c.running;
        } finally {
            lock.unlock();
        }
    }

    /** Waits {@code nanos} on the clock; false (at once) if the campaign is stopped. */
    private boolean sleep(Campaign c, long nanos) throws InterruptedException {
        lock.lock();
        try {
            long deadline = clock.nanoTime() + Math.max(0, nanos);
            while (c.running && deadline - clock.nanoTime() > 0) {
                clock.awaitUntil(lock, wake, deadline);
            }
            return c.running;
        } finally {
            lock.unlock();
        }
    }

    private static Lease withRecord(Lease lease, LeaderElectionRecord record) {
        Lease copy = new Lease(lease.getApiVersion(), lease.getKind(), lease.getMetadata(), record.toSpec());
        return copy;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Requests with a timeout on the clock

    /** A request about the Lease failed, timed out or was cut off; {@code conflict}: a 409. */
    private static final class RequestFailed extends Exception {
        private static final long serialVersionUID = 1L;
        final boolean conflict;
        /** The campaign was stopped while it waited: not a failure of the server's. */
        final boolean abandoned;

        RequestFailed(String message, Throwable cause, boolean conflict, boolean abandoned) {
            super(message, cause);
            this.conflict = conflict;
            this.abandoned = abandoned;
        }
    }

    /** The outcome of one request; guarded by {@code lock}. */
    private static final class Outcome<T> {
        T value;
        RuntimeException failure;
        boolean done;
        boolean timedOut;
    }

    /**
     * Runs {@code request} on a virtual thread of its own and waits for it on the campaign's thread until it answers,
     * the request timeout or {@code deadline} passes on the clock (a scheduled timer, so no clock waiter is left behind),
     * or — if {@code abortOnStop} — the campaign is stopped. A request given up on is interrupted, which cancels its
     * HTTP exchange.
     */
    private <T> T call(Campaign c, String verb, Supplier<T> request, long deadline, boolean abortOnStop)
            throws RequestFailed {
        Outcome<T> outcome = new Outcome<>();
        long start = clock.nanoTime();
        long end = deadline != Long.MAX_VALUE && deadline - start < requestTimeoutNanos
                ? deadline
                : start + requestTimeoutNanos;
        Thread thread = Thread.ofVirtual()
                .name("kubeloop-leader-election-" + config.leaseName() + "-request")
                .unstarted(() -> {
                    T value = null;
                    RuntimeException failure = null;
                    try {
                        value = request.get();
                    } catch (RuntimeException e) {
                        failure = e;
                    }
                    lock.lock();
                    try {
                        outcome.value = value;
                        outcome.failure = failure;
                        outcome.done = true;
                        wake.signalAll();
                    } finally {
                        lock.unlock();
                    }
                });
        Clock.Scheduled timer = clock.schedule(
                () -> {
                    lock.lock();
                    try {
                        if (!outcome.done) {
                            outcome.timedOut = true;
                            wake.signalAll();
                        }
                    } finally {
                        lock.unlock();
                    }
                },
                Duration.ofNanos(end - start));
        lock.lock();
        try {
            thread.start();
            while (!outcome.done && !outcome.timedOut && !(abortOnStop && !c.running)) {
                wake.awaitUninterruptibly();
            }
        } finally {
            lock.unlock();
        }
        timer.cancel();
        lock.lock();
        try {
            if (!outcome.done) {
                thread.interrupt();
                throw new RequestFailed(
                        verb + " "
                                + (outcome.timedOut
                                        ? "timed out after " + Duration.ofNanos(end - start)
                                        : "abandoned: the elector was stopped"),
                        null,
                        false,
                        !outcome.timedOut);
            }
            if (outcome.failure != null) {
                RuntimeException f = outcome.failure;
                boolean conflict = f instanceof ConflictException || f instanceof AlreadyExistsException;
                throw new RequestFailed(verb + ": " + f.getMessage(), f, conflict, false);
            }
            return outcome.value;
        } finally {
            lock.unlock();
        }
    }

    /** Builds a {@link LeaderElector}. */
    public static final class Builder {
        private final KubernetesClient client;
        private final LeaderElectionConfig config;
        private LeaderCallbacks callbacks;
        private MeterRegistry meterRegistry;

        private Builder(KubernetesClient client, LeaderElectionConfig config) {
            this.client = Objects.requireNonNull(client, "client");
            this.config = Objects.requireNonNull(config, "config");
        }

        /** What to do on becoming and ceasing to be leader (required). */
        public Builder callbacks(LeaderCallbacks callbacks) {
            this.callbacks = Objects.requireNonNull(callbacks, "callbacks");
            return this;
        }

        /** Where to record {@code leader_election_master_status} and the transitions counter (default: nowhere). */
        public Builder meterRegistry(MeterRegistry meterRegistry) {
            this.meterRegistry = Objects.requireNonNull(meterRegistry, "meterRegistry");
            return this;
        }

        /**
         * The elector, not started.
         *
         * @throws IllegalStateException if no callbacks were given
         */
        public LeaderElector build() {
            if (callbacks == null) {
                throw new IllegalStateException("LeaderElector.builder(...).callbacks(...) is required: an elector"
                        + " that tells nobody it leads is of no use");
            }
            return new LeaderElector(this);
        }
    }
}
