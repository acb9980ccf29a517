package io.kubeloop.demo.internal.scenario;

import io.kubeloop.demo.Demo;
import io.kubeloop.demo.DemoReport;

/** One run of the demo: cluster, operators, observer, scenario, convergence, audit, report. */
public final class DemoRun {
    private final Demo.Settings settings;

    public DemoRun(Demo.Settings settings) {
        this.settings = settings;
    }

    public DemoReport run() throws InterruptedException {
        throw new UnsupportedOperationException("issue 19, work package 'runner': " + settings.scenario());
    }
}
