package io.kubeloop.apiserver;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * An {@link EmbeddedServerTest} driven by the real kubectl: {@link #kubectl} has its own kubeconfig for the
 * server and its own discovery cache in {@link #dir}. Tests are skipped where kubectl is not installed, and fail
 * instead on CI (see {@link Kubectl#assumeInstalled()}).
 */
abstract class KubectlTest extends EmbeddedServerTest {

    /** The Deployment kubectl tests apply: {@code web}, labelled {@code app: web}, 2 replicas of nginx:1.25. */
    static final String DEPLOYMENT_YAML = """
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: web
              labels: {app: web}
            spec:
              replicas: 2
              selector:
                matchLabels: {app: web}
              template:
                metadata:
                  labels: {app: web}
                spec:
                  containers:
                  - name: nginx
                    image: nginx:1.25
            """;

    Kubectl kubectl;
    /** kubectl's kubeconfig, cache and captured output; a test may keep its own files here too. */
    @TempDir
    Path dir;

    @BeforeEach
    final void startKubectl() {
        Kubectl.assumeInstalled();
        kubectl = new Kubectl(server, dir);
    }
}
