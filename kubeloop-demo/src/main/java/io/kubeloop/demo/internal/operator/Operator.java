package io.kubeloop.demo.internal.operator;

import io.kubeloop.controller.Manager;

/** Builds the pod-guardian manager from {@link OperatorSettings}: the PodSet and replica-audit controllers. */
public final class Operator {
    private Operator() {}

    public static Manager build(OperatorSettings settings) {
        throw new UnsupportedOperationException("pod-guardian: being built (issue 19, work package 'operator')");
    }
}
