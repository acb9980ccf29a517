package io.kubeloop.demo.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PromQlTest {

    @Test
    void namesBeforeBracesAndBracketsAndAloneAreMetrics() {
        assertThat(PromQl.metricNames(
                        "sum by (namespace, pod, controller) (increase(controller_runtime_reconcile_errors_total"
                                + "{controller=~\"pod-guardian|replica-audit\"}[1m])) > 5"))
                .containsExactly("controller_runtime_reconcile_errors_total");
        assertThat(PromQl.metricNames("max(leader_election_master_status{name=\"pod-guardian\"}) < 1"))
                .containsExactly("leader_election_master_status");
        assertThat(PromQl.metricNames("time() - max by (pod, name) (reflector_last_event_timestamp_seconds > 0)"))
                .containsExactly("reflector_last_event_timestamp_seconds");
        assertThat(PromQl.metricNames("up")).containsExactly("up");
    }

    @Test
    void labelListsStringsDurationsVariablesAndKeywordsAreNot() {
        assertThat(PromQl.metricNames("histogram_quantile(0.99, sum by (name, le) (rate("
                        + "workqueue_queue_duration_seconds_bucket{name=~\"$controller\"}[$__rate_interval])))"))
                .containsExactly("workqueue_queue_duration_seconds_bucket");
        assertThat(PromQl.metricNames("(a > 20) and on (pod) group_left (x) (deriv(b[5m]) > 0) unless c offset 5m"))
                .containsExactly("a", "b", "c");
        assertThat(PromQl.metricNames("sum without (instance) (rate(x_total[5m])) / ignoring(le) y_count"))
                .containsExactly("x_total", "y_count");
        assertThat(PromQl.metricNames("label_values(controller_runtime_reconcile_total, controller)"))
                .containsExactly("controller_runtime_reconcile_total");
        assertThat(PromQl.metricNames("label_values(controller)")).isEmpty();
        assertThat(PromQl.metricNames("rate(x[${__range}]) * 1e3 + .5")).containsExactly("x");
    }

    @Test
    void aMisspeltFunctionIsAnError() {
        assertThatThrownBy(() -> PromQl.metricNames("sum(increse(x[1m]))"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[increse]");
        assertThatThrownBy(() -> PromQl.metricNames("x{a=\"b\"")).hasMessageContaining("unbalanced");
    }
}
