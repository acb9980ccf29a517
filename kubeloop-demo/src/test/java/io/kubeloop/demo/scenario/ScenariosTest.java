package io.kubeloop.demo.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubeloop.demo.Demo;
import io.kubeloop.demo.internal.scenario.Scenario;
import io.kubeloop.demo.internal.scenario.Scenarios;
import io.kubeloop.demo.internal.scenario.Step;
import io.kubeloop.demo.internal.scenario.Step.Kind;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The scenarios' plans: steps, offsets, stretching, refusals; no cluster. */
class ScenariosTest {

    @Test
    void theIncidentPlaysEveryFaultInOrderWithinTheDefaultRun() {
        Scenario s = Scenarios.plan("incident", Duration.ofSeconds(60), 10, 3);

        assertThat(s.length()).isEqualTo(Duration.ofSeconds(600));
        assertThat(s.steps().stream().map(Step::kind).distinct())
                .containsExactly(
                        Kind.KILL_PODS,
                        Kind.NODE_STOP,
                        Kind.NODE_START,
                        Kind.NETWORK_CUT,
                        Kind.NETWORK_RESTORE,
                        Kind.COMPACT,
                        Kind.LEADER_KILL,
                        Kind.NOISY_NEIGHBOUR);
        assertThat(s.steps()).isSortedAccordingTo((a, b) -> a.at().compareTo(b.at()));
        assertThat(s.steps().getFirst().at()).isEqualTo(Duration.ZERO);
        assertThat(s.steps().getLast().at()).isLessThan(s.length());
        // the node failure early, down long enough for the eviction (50 s grace + 30 s toleration), back before the end
        Step stop = first(s, Kind.NODE_STOP);
        Step start = first(s, Kind.NODE_START);
        assertThat(stop.at()).isLessThan(s.length().dividedBy(4));
        assertThat(start.at().minus(stop.at())).isGreaterThanOrEqualTo(Duration.ofSeconds(85));
        // the cut lasts 30 s of cluster time whatever the stretch, with pods killed meanwhile
        Step cut = first(s, Kind.NETWORK_CUT);
        Step restore = first(s, Kind.NETWORK_RESTORE);
        assertThat(restore.at().minus(cut.at())).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.steps())
                .anyMatch(x -> x.kind() == Kind.KILL_PODS
                        && x.at().compareTo(cut.at()) > 0
                        && x.at().compareTo(restore.at()) < 0);
    }

    @Test
    void phasesStretchWithTheRunButTheirFaultsKeepTheirLength() {
        Scenario shortRun = Scenarios.plan("incident", Duration.ofSeconds(30), 10, 3);
        Scenario longRun = Scenarios.plan("incident", Duration.ofSeconds(60), 10, 3);

        assertThat(first(longRun, Kind.LEADER_KILL).at())
                .isGreaterThan(first(shortRun, Kind.LEADER_KILL).at());
        assertThat(first(longRun, Kind.NODE_START)
                        .at()
                        .minus(first(longRun, Kind.NODE_STOP).at()))
                .isEqualTo(first(shortRun, Kind.NODE_START)
                        .at()
                        .minus(first(shortRun, Kind.NODE_STOP).at()));
        // the same plan at twice the speed for half the duration
        assertThat(Scenarios.plan("incident", Duration.ofSeconds(30), 20, 3)).isEqualTo(longRun);
    }

    @Test
    void killPodsKillsThreePodsEveryFiveSecondsOfRealTime() {
        Scenario s = Scenarios.plan("kill-pods", Duration.ofSeconds(60), 10, 3);

        assertThat(s.steps()).hasSize(12).allMatch(x -> x.kind() == Kind.KILL_PODS && x.pods() == 3);
        assertThat(s.steps().get(1).at()).isEqualTo(Duration.ofSeconds(50)); // 5 s real at speed 10
    }

    @Test
    void aShortKillPodsRunStillKillsTwice() {
        Scenario s = Scenarios.plan("kill-pods", Duration.ofSeconds(8), 10, 2);

        assertThat(s.steps()).extracting(Step::at).containsExactly(Duration.ZERO, Duration.ofSeconds(40));
    }

    @Test
    void eachSingleScenarioPlaysItsFaultWithPodsKilled() {
        for (String name : List.of("node-failure", "network-cut", "relist", "failover", "noisy-neighbour")) {
            Scenario s = Scenarios.plan(name, Duration.ofSeconds(60), 10, 3);
            assertThat(s.steps()).as(name).isNotEmpty();
            assertThat(s.steps())
                    .as(name + " has pods to recover")
                    .anyMatch(x -> x.kind() == Kind.KILL_PODS
                            || x.kind() == Kind.NOISY_NEIGHBOUR
                            || x.kind() == Kind.NODE_STOP);
        }
    }

    @Test
    void aRunTooShortForTheScenarioIsRefusedNamingTheLeastDuration() {
        assertThatThrownBy(() -> Scenarios.plan("incident", Duration.ofSeconds(10), 10, 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("scenario 'incident' needs at least 295 s of cluster time")
                .hasMessageContaining("got 100 s (duration 10 s × speed 10)")
                .hasMessageContaining("duration of at least 29.5 s at speed 10");
        assertThatThrownBy(() -> Scenarios.plan("node-failure", Duration.ofSeconds(5), 10, 3))
                .hasMessageContaining("needs at least 130 s");
    }

    @Test
    void aNodeFailureNeedsTwoNodes() {
        assertThatThrownBy(() -> Scenarios.plan("node-failure", Duration.ofSeconds(60), 10, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs at least 2 nodes, got 1");
        assertThat(Scenarios.plan("network-cut", Duration.ofSeconds(60), 10, 1).steps())
                .isNotEmpty();
    }

    @Test
    void anUnknownScenarioIsRefusedListingTheKnownOnes() {
        assertThatThrownBy(() -> Scenarios.plan("meltdown", Duration.ofSeconds(60), 10, 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown scenario 'meltdown'")
                .hasMessageContaining("incident, kill-pods, node-failure");
        assertThatThrownBy(() -> Demo.builder().scenario("meltdown").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown scenario 'meltdown'");
    }

    @Test
    void runRefusesARunTooShortBeforeStartingAnything() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Demo demo = Demo.builder()
                .scenario("incident")
                .duration(Duration.ofSeconds(5))
                .speed(10)
                .out(new PrintStream(out, true, StandardCharsets.UTF_8))
                .build();

        assertThatThrownBy(demo::run)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs at least 295 s of cluster time");
        assertThat(out.toString(StandardCharsets.UTF_8))
                .as("nothing started, nothing printed")
                .isEmpty();
    }

    @Test
    void everyListedScenarioHasAPlanAtTheDefaults() {
        for (String name : Demo.scenarios().keySet()) {
            assertThat(Scenarios.plan(name, Duration.ofSeconds(60), 10, 3).name())
                    .isEqualTo(name);
        }
    }

    private static Step first(Scenario s, Kind kind) {
        return s.steps().stream().filter(x -> x.kind() == kind).findFirst().orElseThrow();
    }
}
