package io.kubeloop.cluster.internal.replicaset;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The deletion order of kube's {@code ActivePodsWithRanks.Less} (controller_utils.go, 1.32 with LogarithmicScaleDown
 * and PodDeletionCost), one rule per case: each case gives two pods that differ in that rule only (and in the rules
 * below it, which must not matter), listed in the order kube deletes them.
 */
class PodsToDeleteTest {

    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");

    @Test
    void eachRuleOrdersTwoPodsThatTieOnTheRulesAboveIt() {
        record Case(String rule, Pod first, Pod second, List<Pod> related) {}
        List<Case> cases = List.of(
                new Case(
                        "1. unassigned before assigned",
                        pod("a").build(),
                        pod("b").node("n1").build(),
                        List.of()),
                new Case(
                        "2. Pending before Unknown",
                        pod("a").node("n1").phase("Pending").build(),
                        pod("b").node("n1").phase("Unknown").build(),
                        List.of()),
                new Case(
                        "2. Unknown before Running",
                        pod("a").node("n1").phase("Unknown").build(),
                        pod("b").node("n1").phase("Running").build(),
                        List.of()),
                new Case(
                        "3. not ready before ready",
                        pod("a").node("n1").phase("Running").build(),
                        pod("b").node("n1")
                                .phase("Running")
                                .ready(NOW.minusSeconds(5))
                                .build(),
                        List.of()),
                new Case(
                        "4. lower deletion cost first",
                        pod("a").node("n1")
                                .cost("-5")
                                .ready(NOW.minusSeconds(5))
                                .build(),
                        pod("b").node("n1")
                                .cost("10")
                                .ready(NOW.minusSeconds(100_000))
                                .build(),
                        List.of()),
                new Case(
                        "4. an invalid cost counts as 0",
                        pod("a").node("n1")
                                .cost("+7")
                                .ready(NOW.minusSeconds(100_000))
                                .build(),
                        pod("b").node("n1").cost("1").ready(NOW.minusSeconds(5)).build(),
                        List.of()),
                new Case(
                        "5. more related pods on the node first",
                        pod("a").node("crowded")
                                .ready(NOW.minusSeconds(100_000))
                                .build(),
                        pod("b").node("quiet").ready(NOW.minusSeconds(5)).build(),
                        List.of(
                                pod("r1").node("crowded").build(),
                                pod("r2").node("crowded").build())),
                new Case(
                        "6. ready more recently first",
                        pod("a").node("n1")
                                .ready(NOW.minusSeconds(10))
                                .restarts(0)
                                .build(),
                        pod("b").node("n1")
                                .ready(NOW.minusSeconds(1000))
                                .restarts(9)
                                .build(),
                        List.of()),
                new Case(
                        "6. ready times in one log2 bucket: the smaller uid first (restarts are not looked at)",
                        pod("a").node("n1")
                                .ready(NOW.minusSeconds(40))
                                .restarts(0)
                                .build(),
                        pod("b").node("n1")
                                .ready(NOW.minusSeconds(35))
                                .restarts(3)
                                .build(),
                        List.of()),
                new Case(
                        "7. more restarts first",
                        pod("a").node("n1")
                                .ready(NOW.minusSeconds(40))
                                .restarts(3)
                                .created(NOW.minusSeconds(9000))
                                .build(),
                        pod("b").node("n1")
                                .ready(NOW.minusSeconds(40))
                                .restarts(1)
                                .build(),
                        List.of()),
                new Case(
                        "8. newer first",
                        pod("a").node("n1").created(NOW.minusSeconds(60)).build(),
                        pod("b").node("n1").created(NOW.minusSeconds(6000)).build(),
                        List.of()));
        for (Case c : cases) {
            for (List<Pod> input : List.of(List.of(c.first(), c.second()), List.of(c.second(), c.first()))) {
                // choose 1 of 2 so that the order is computed (all of them need no order)
                assertThat(PodsToDelete.choose(input, c.related(), 1, NOW))
                        .as(c.rule())
                        .containsExactly(c.first());
            }
        }
    }

    @Test
    void deletingEveryPodNeedsNoOrder() {
        List<Pod> pods = List.of(pod("x").node("n1").build(), pod("y").build());
        assertThat(PodsToDelete.choose(pods, List.of(), 2, NOW)).containsExactlyElementsOf(pods);
    }

    @Test
    void deletionCostParsesAsKubeDoes() {
        assertThat(PodsToDelete.deletionCost(pod("a").cost("-3").build())).isEqualTo(-3);
        assertThat(PodsToDelete.deletionCost(pod("a").cost("0").build())).isZero();
        assertThat(PodsToDelete.deletionCost(pod("a").cost("007").build())).isZero();
        assertThat(PodsToDelete.deletionCost(pod("a").cost("99999999999").build()))
                .isZero();
        assertThat(PodsToDelete.deletionCost(pod("a").build())).isZero();
    }

    private static PodSpec pod(String name) {
        return new PodSpec(name);
    }

    /** A pod under construction: defaults tie on every rule. */
    private static final class PodSpec {
        private final String name;
        private String node;
        private String phase = "Running";
        private Instant readySince;
        private String cost;
        private int restarts;
        private Instant created = NOW.minusSeconds(3600);

        PodSpec(String name) {
            this.name = name;
        }

        PodSpec node(String n) {
            node = n;
            return this;
        }

        PodSpec phase(String p) {
            phase = p;
            return this;
        }

        PodSpec ready(Instant since) {
            readySince = since;
            return this;
        }

        PodSpec cost(String c) {
            cost = c;
            return this;
        }

        PodSpec restarts(int r) {
            restarts = r;
            return this;
        }

        PodSpec created(Instant t) {
            created = t;
            return this;
        }

        Pod build() {
            var conditions = new ArrayList<io.fabric8.kubernetes.api.model.PodCondition>();
            conditions.add(new PodConditionBuilder()
                    .withType("Ready")
                    .withStatus(readySince == null ? "False" : "True")
                    .withLastTransitionTime(readySince == null ? null : readySince.toString())
                    .build());
            return new PodBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withNamespace("ns")
                    .withUid("uid-" + name)
                    .withCreationTimestamp(created.toString())
                    .withAnnotations(cost == null ? Map.of() : Map.of(PodsToDelete.DELETION_COST, cost))
                    .endMetadata()
                    .withNewSpec()
                    .withNodeName(node)
                    .endSpec()
                    .withNewStatus()
                    .withPhase(phase)
                    .withConditions(conditions)
                    .withContainerStatuses(new ContainerStatusBuilder()
                            .withName("main")
                            .withRestartCount(restarts)
                            .build())
                    .endStatus()
                    .build();
        }
    }
}
