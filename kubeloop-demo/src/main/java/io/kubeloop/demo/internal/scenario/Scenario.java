package io.kubeloop.demo.internal.scenario;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A scenario planned for one run: its steps on the cluster's timeline, and how long the whole scenario lasts in
 * cluster time ({@code duration × speed}); after the last step the run waits until then, then for convergence.
 *
 * @param name one of {@link Scenarios#describe()}
 * @param length cluster time the scenario lasts
 * @param steps in {@link Step#at()} order, all within {@code length}
 */
public record Scenario(String name, Duration length, List<Step> steps) {

    public Scenario {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(length, "length");
        steps = List.copyOf(steps);
        for (int i = 1; i < steps.size(); i++) {
            if (steps.get(i).at().compareTo(steps.get(i - 1).at()) < 0) {
                throw new IllegalArgumentException("steps out of order: " + steps);
            }
        }
        if (!steps.isEmpty() && steps.getLast().at().compareTo(length) > 0) {
            throw new IllegalArgumentException("a step after the scenario's end: " + steps.getLast() + " > " + length);
        }
    }

    /** Whether a step of {@code kind} is part of the scenario. */
    public boolean has(Step.Kind kind) {
        return steps.stream().anyMatch(s -> s.kind() == kind);
    }
}
