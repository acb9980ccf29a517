package io.kubeloop.apiserver;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * An {@link EmbeddedServerTest} driven by the real kubectl: {@link #kubectl} has its own kubeconfig for the
 * server and its own discovery cache in {@link #dir}. Tests are skipped where kubectl is not installed (never on
 * CI, see {@link Kubectl#available()}).
 */
abstract class KubectlTest extends EmbeddedServerTest {

    Kubectl kubectl;
    /** kubectl's kubeconfig, cache and captured output; a test may keep its own files here too. */
    @TempDir
    Path dir;

    @BeforeEach
    final void startKubectl() {
        assumeTrue(Kubectl.available(), "kubectl is not installed");
        kubectl = new Kubectl(server, dir);
    }
}
