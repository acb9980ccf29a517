package io.kubeloop.testkit.internal;

import io.kubeloop.testkit.KubeloopTest;
import java.util.Optional;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The settings of one test server, read from the nearest {@link KubeloopTest} of a test class or its enclosing
 * classes. A value type: equal settings share a server when {@link #shared()}, so it is also the store key.
 */
record ServerSettings(
        boolean tls, boolean rbac, boolean faults, boolean shared, int nodes, double speed, boolean fakeClock) {

    /** Without any {@code @KubeloopTest} (the extension registered by hand): plain HTTP, one server per class. */
    static final ServerSettings DEFAULTS = new ServerSettings(false, false, false, false, 0, 1.0, false);

    static ServerSettings of(Class<?> testClass) {
        for (Class<?> c = testClass; c != null; c = c.getEnclosingClass()) {
            Optional<KubeloopTest> found = AnnotationSupport.findAnnotation(c, KubeloopTest.class);
            if (found.isPresent()) {
                KubeloopTest a = found.get();
                return new ServerSettings(
                        a.tls(), a.rbac(), a.faults(), a.shared(), a.nodes(), a.speed(), a.fakeClock());
            }
        }
        return DEFAULTS;
    }

    /** A short description for report entries and messages, e.g. {@code tls, rbac, shared}. */
    String describe() {
        StringBuilder s = new StringBuilder(tls ? "tls" : "plain http");
        if (rbac) {
            s.append(", rbac");
        }
        if (faults) {
            s.append(", faults");
        }
        if (nodes > 0) {
            s.append(", ").append(nodes).append(nodes == 1 ? " node" : " nodes");
            if (speed != 1.0) {
                s.append(", speed ").append(speed);
            }
        }
        if (fakeClock) {
            s.append(", fake clock");
        }
        if (shared) {
            s.append(", shared");
        }
        return s.toString();
    }
}
