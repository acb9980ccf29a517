package io.kubeloop.demo.internal.incident;

import io.kubeloop.demo.DemoReport;

/** {@link DemoReport#toText()} and {@link DemoReport#toJson()}. */
public final class ReportRenderer {
    private ReportRenderer() {}

    public static String text(DemoReport report) {
        throw new UnsupportedOperationException("issue 19, work package 'report'");
    }

    public static String json(DemoReport report) {
        throw new UnsupportedOperationException("issue 19, work package 'report'");
    }
}
