package io.kubeloop.controller.leaderelection;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.kubeloop.controller.leaderelection.ElectionHarness.Candidate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two and three candidates for one Lease on the embedded API server, over real HTTP, on one fake clock (see {@link
 * ElectionHarness}): one leader at a time (checked after every 100 ms step and over the recorded "leading" intervals of
 * all candidates), takeover after a crash within the lease duration plus the retry cadence, takeover within one retry
 * after a release, a partitioned leader that stops before its lease can expire for others, and re-election in the
 * same elector.
 */
class LeaderElectionIT {

    private static final long LEASE = Duration.ofSeconds(15).toNanos();
    private static final long RENEW_DEADLINE = Duration.ofSeconds(10).toNanos();
    private static final long RETRY = Duration.ofSeconds(2).toNanos();
    /** The longest wait between two acquire attempts: retryPeriod × (1 + 1.2). */
    private static final long MAX_RETRY = (long) (RETRY * (1 + LeaderElectionConfig.JITTER_FACTOR));

    private static final long STEP = ElectionHarness.STEP.toNanos();

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(LeaderElectionIT.class);

    private final ElectionHarness h = new ElectionHarness();

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void ofThreeCandidatesExactlyOneLeadsAndTheOthersKnowWhich() {
        Candidate a = h.add("a");
        Candidate b = h.add("b");
        Candidate c = h.add("c");
        h.startAll();
        // The first attempt of each candidate is immediate: one of them created the Lease.
        Candidate leader = h.theLeader();
        h.stepFor(Duration.ofSeconds(60)); // 30 renewals; at most one leader after every step
        assertThat(h.theLeader()).isSameAs(leader);
        for (Candidate x : List.of(a, b, c)) {
            assertThat(x.elector.leaderIdentity()).contains(leader.identity);
            assertThat(x.newLeaders).containsExactly(leader.identity);
            assertThat(x.masterStatus()).isEqualTo(x == leader ? 1.0 : 0.0);
            assertThat(x.transitions()).isEqualTo(x == leader ? 1.0 : 0.0);
            assertThat(x.intervals).hasSize(x == leader ? 1 : 0);
        }
        Lease lease = h.lease();
        assertThat(lease.getSpec().getHolderIdentity()).isEqualTo(leader.identity);
        assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(15);
        assertThat(lease.getSpec().getLeaseTransitions()).isZero();
        // Renewed: the renew time follows the clock (renewals every 2 s), the acquire time stays.
        assertThat(Duration.between(lease.getSpec().getRenewTime().toInstant(), h.fake.now()))
                .isLessThanOrEqualTo(Duration.ofSeconds(3));
        assertThat(Duration.between(lease.getSpec().getAcquireTime().toInstant(), h.fake.now()))
                .isGreaterThanOrEqualTo(Duration.ofSeconds(60));
        assertThat(leader.callbackThreads).containsExactly("kubeloop-leader-election-the-operator-callbacks");
        h.assertNoOverlap();
    }

    @Test
    void whenTheLeaderDiesWithoutReleasingAFollowerTakesOverOnceTheLeaseHasExpired() {
        for (String id : List.of("a", "b", "c")) {
            h.add(id, cfg -> cfg.releaseOnCancel(false));
        }
        h.startAll();
        h.stepFor(Duration.ofSeconds(5)); // the followers have seen a renewal or two
        Candidate dead = h.theLeader();
        String transitionsBefore = String.valueOf(h.lease().getSpec().getLeaseTransitions());

        long killedAt = h.fake.nanoTime();
        dead.elector.stop(); // a crash, as far as the Lease knows: no release
        assertThat(h.lease().getSpec().getHolderIdentity()).isEqualTo(dead.identity);
        h.stepUntil("a takeover", Duration.ofMinutes(1), () -> h.leaders().size() == 1);
        Candidate next = h.theLeader();
        long takeover = next.startedAt(0) - killedAt;
        log.info("measured: takeover {} after the leader's crash", ElectionHarness.seconds(takeover));

        // Its last renewal started at most one retry period before the kill, and the followers saw it after that:
        // none may take over sooner than leaseDuration - retryPeriod after the kill. The one that takes over has seen
        // that renewal within one (jittered) retry of it, and tries again within one more after the lease expired.
        assertThat(takeover)
                .as("takeover %s after the kill", ElectionHarness.seconds(takeover))
                .isGreaterThanOrEqualTo(LEASE - RETRY)
                .isLessThanOrEqualTo(LEASE + 2 * MAX_RETRY + STEP);
        assertThat(dead.stoppedAt(0)).isEqualTo(killedAt);
        Lease lease = h.lease();
        assertThat(lease.getSpec().getHolderIdentity()).isEqualTo(next.identity);
        assertThat(String.valueOf(lease.getSpec().getLeaseTransitions()))
                .isEqualTo(String.valueOf(Integer.parseInt(transitionsBefore) + 1));
        // The other follower sees the new holder at its next attempt.
        h.stepUntil(
                "every live candidate knowing the new leader",
                Duration.ofMillis(MAX_RETRY + STEP),
                () -> h.candidates.stream().filter(x -> x != dead).allMatch(x -> x.elector
                        .leaderIdentity()
                        .filter(next.identity::equals)
                        .isPresent()));
        h.assertNoOverlap();
    }

    @Test
    void aReleasedLeaseIsTakenOverWithinOneRetry() {
        Candidate a = h.add("a");
        Candidate b = h.add("b");
        h.startAll();
        h.stepFor(Duration.ofSeconds(3));
        Candidate leader = h.theLeader();
        Candidate follower = leader == a ? b : a;

        long stoppedAt = h.fake.nanoTime();
        leader.elector.stop(); // returns once onStoppedLeading has run and the Lease is released
        assertThat(leader.elector.isLeader()).isFalse();
        assertThat(leader.stoppedAt(0)).isEqualTo(stoppedAt);
        Lease released = h.lease();
        assertThat(released.getSpec().getHolderIdentity()).isEmpty();
        assertThat(released.getSpec().getLeaseDurationSeconds()).isEqualTo(1);
        assertThat(released.getSpec().getLeaseTransitions()).isZero();

        h.stepUntil("a takeover", Duration.ofSeconds(10), () -> follower.elector.isLeader());
        log.info("measured: takeover {} after the release", ElectionHarness.seconds(follower.startedAt(0) - stoppedAt));
        assertThat(follower.startedAt(0) - stoppedAt).isLessThanOrEqualTo(MAX_RETRY + STEP);
        assertThat(h.lease().getSpec().getLeaseTransitions()).isEqualTo(1);
        h.assertNoOverlap();
    }

    @Test
    void aPartitionedLeaderStopsLeadingBeforeItsLeaseCanExpireForTheOthers() {
        h.add("a");
        h.add("b");
        h.add("c");
        h.startAll();
        h.stepFor(Duration.ofSeconds(5));
        Candidate cutOff = h.theLeader();

        // The clock started at 2026-01-01T00:00:00Z at nanoTime 0: the renew time is the clock's time of the start
        // of the last successful renewal.
        long lastRenewal = Duration.between(
                        java.time.Instant.parse("2026-01-01T00:00:00Z"),
                        h.lease().getSpec().getRenewTime().toInstant())
                .toNanos();
        long partitionedAt = h.fake.nanoTime();
        cutOff.partition(); // its requests hang: renewals time out (5 s each, on the clock)
        h.stepUntil("a new leader", Duration.ofMinutes(1), () -> h.leaders().stream()
                .anyMatch(c -> c != cutOff));
        Candidate next = h.theLeader();

        // The cut-off leader's last successful renewal started before the partition: it stopped leading within the
        // renew deadline of it, and before anyone else could start.
        assertThat(cutOff.intervals).hasSize(1);
        assertThat(cutOff.stoppedAt(0) - partitionedAt).isLessThanOrEqualTo(RENEW_DEADLINE);
        assertThat(cutOff.stoppedAt(0))
                .as("stopped exactly at the renew deadline after its last renewal started")
                .isEqualTo(lastRenewal + RENEW_DEADLINE);
        log.info(
                "measured: partitioned leader stopped {} after the partition, new leader started {} after that",
                ElectionHarness.seconds(cutOff.stoppedAt(0) - partitionedAt),
                ElectionHarness.seconds(next.startedAt(0) - cutOff.stoppedAt(0)));
        assertThat(next.startedAt(0) - cutOff.stoppedAt(0))
                .as("margin between the old leader's stop and the new leader's start")
                .isGreaterThanOrEqualTo(LEASE - RENEW_DEADLINE);
        assertThat(cutOff.masterStatus()).isZero();
        assertThat(cutOff.transitions()).isEqualTo(2.0);
        assertThat(cutOff.elector.status().lastError()).contains("timed out");
        h.assertNoOverlap();

        // The cable is back: the old leader, still campaigning in the same elector, follows the new one.
        h.server.faults().clear();
        cutOff.partitioned = false;
        h.stepUntil("the old leader following", Duration.ofSeconds(30), () -> cutOff.elector
                .leaderIdentity()
                .filter(next.identity::equals)
                .isPresent());
        h.stepFor(Duration.ofSeconds(20));
        assertThat(h.theLeader()).isSameAs(next);
        assertThat(cutOff.elector.status().lastError()).isNull();

        // The new leader goes away; the old one leads again, without having been restarted.
        next.elector.stop();
        h.stepUntil("re-election", Duration.ofSeconds(30), () -> h.leaders().size() == 1);
        Candidate third = h.theLeader();
        assertThat(third.intervals).isNotEmpty();
        h.assertNoOverlap();
        if (third == cutOff) {
            assertThat(cutOff.intervals).hasSize(2);
        }
    }

    @Test
    void aLeaderThatLostItsLeaseLeadsAgainInTheSameElector() {
        Candidate a = h.add("a");
        h.startAll();
        assertThat(a.elector.isLeader()).isTrue();
        a.partition();
        h.stepUntil("the loss", Duration.ofSeconds(11), () -> !a.elector.isLeader());
        assertThat(a.intervals).hasSize(1);
        h.server.faults().clear();
        a.partitioned = false;
        h.stepUntil("re-election", Duration.ofSeconds(30), () -> a.elector.isLeader());
        assertThat(a.intervals).hasSize(2);
        assertThat(a.transitions()).isEqualTo(3.0);
        // Still the holder it was: no takeover happened, so no transition was counted on the Lease.
        assertThat(h.lease().getSpec().getLeaseTransitions()).isZero();
        h.assertNoOverlap();
    }

    @Test
    void aStoppedElectorCanBeStartedAgain() {
        Candidate a = h.add("a");
        Candidate b = h.add("b");
        h.startAll();
        Candidate first = h.theLeader();
        Candidate second = first == a ? b : a;
        first.elector.stop();
        assertThat(first.elector.isRunning()).isFalse();
        first.elector.stop(); // idempotent
        h.stepUntil("the follower leading", Duration.ofSeconds(10), () -> second.elector.isLeader());

        first.elector.start();
        h.settle();
        assertThat(first.elector.isRunning()).isTrue();
        assertThat(first.elector.leaderIdentity()).contains(second.identity);
        second.elector.stop();
        h.stepUntil("the restarted elector leading", Duration.ofSeconds(10), () -> first.elector.isLeader());
        assertThat(first.intervals).hasSize(2);
        assertThat(h.lease().getSpec().getLeaseTransitions()).isEqualTo(2);
        h.assertNoOverlap();
    }

    @Test
    void aSlowCallbackNeverDelaysRenewing() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Candidate a = h.add("a");
        Candidate b = h.add("b");
        a.onStarted = () -> {
            try {
                release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        b.onStarted = a.onStarted;
        for (Candidate c : h.candidates) {
            c.elector.start();
        }
        // onStartedLeading is stuck: the leader's callbacks lag, so settle only on the campaign threads.
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> h.leaders().size() == 1);
        Candidate leader = h.theLeader();
        Candidate follower = leader == a ? b : a;
        for (int i = 0; i < 300; i++) { // 30 s: renewals go on while the callback blocks
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(1))
                    .until(() -> campaignWaits(leader) && campaignWaits(follower));
            h.fake.step(ElectionHarness.STEP);
        }
        assertThat(leader.elector.isLeader()).isTrue();
        assertThat(follower.elector.isLeader()).isFalse();
        assertThat(Duration.between(h.lease().getSpec().getRenewTime().toInstant(), h.fake.now()))
                .isLessThanOrEqualTo(Duration.ofSeconds(3));
        release.countDown();
        h.settle();
        assertThat(leader.intervals).hasSize(1);
    }

    @Test
    void stoppingACandidateThatNeverLedCallsNoCallback() {
        Candidate a = h.add("a");
        Candidate b = h.add("b");
        h.startAll();
        Candidate follower = a.elector.isLeader() ? b : a;
        follower.elector.stop();
        h.settle();
        assertThat(follower.intervals).isEmpty();
        assertThat(follower.transitions()).isZero();
        // The leader's Lease was not touched by the follower's release.
        assertThat(h.lease().getSpec().getHolderIdentity()).isEqualTo(h.theLeader().identity);
    }

    @Test
    void aLeaderThatFindsAnotherHolderStopsAtOnceInsteadOfAtItsRenewDeadline() {
        Candidate a = h.add("a");
        h.startAll();
        assertThat(a.elector.isLeader()).isTrue();
        // Someone else writes the Lease (an operator of another version, a hand edit): a's next optimistic renewal
        // gets 409 for its stale resourceVersion, it reads the Lease, and sees a valid lease held by "intruder".
        h.observer.resources(Lease.class).inNamespace(ElectionHarness.NAMESPACE).edit(ElectionHarness.LEASE, l -> {
            l.getSpec().setHolderIdentity("intruder");
            l.getSpec().setRenewTime(java.time.ZonedDateTime.ofInstant(h.fake.now(), java.time.ZoneOffset.UTC));
            return l;
        });
        long editedAt = h.fake.nanoTime();
        h.stepUntil("the loss", Duration.ofSeconds(10), () -> !a.elector.isLeader());
        assertThat(a.stoppedAt(0) - editedAt).isLessThanOrEqualTo(RETRY + STEP);
        assertThat(a.elector.leaderIdentity()).contains("intruder");
        assertThat(a.newLeaders).containsExactly("a", "intruder");
        // It respects the intruder's lease until it expires (no renewals come), then takes it back.
        h.stepUntil("the takeover", Duration.ofSeconds(30), () -> a.elector.isLeader());
        assertThat(a.startedAt(1) - editedAt).isGreaterThanOrEqualTo(LEASE);
        assertThat(h.lease().getSpec().getLeaseTransitions()).isEqualTo(1);
        h.assertNoOverlap();
    }

    @Test
    void aCallbackThatThrowsNeitherStopsTheElectorNorTheNextCallbacks() {
        Candidate a = h.add("a");
        a.onStarted = () -> {
            throw new IllegalStateException("the controllers failed to start");
        };
        h.startAll();
        assertThat(a.elector.isLeader()).isTrue();
        h.stepFor(Duration.ofSeconds(20)); // renewals go on
        assertThat(a.elector.isLeader()).isTrue();
        a.elector.stop();
        assertThat(a.intervals).hasSize(1);
        assertThat(a.stoppedAt(0)).isEqualTo(h.fake.nanoTime());
        assertThat(h.lease().getSpec().getHolderIdentity()).isEmpty(); // released after onStoppedLeading
    }

    private boolean campaignWaits(Candidate c) {
        Long deadline = h.clock.waiting.get("kubeloop-leader-election-" + ElectionHarness.LEASE + "-" + c.identity);
        return deadline != null && deadline - h.fake.nanoTime() > 0;
    }
}
