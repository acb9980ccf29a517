package io.kubeloop.apiserver;

import java.nio.file.Path;

/**
 * kubeloop-test-support's kubectl runner on an embedded server: writes the server's kubeconfig to
 * {@code dir/kubeconfig} first. Every test that needs kubectl starts with {@link #assumeInstalled()}.
 */
final class Kubectl extends io.kubeloop.testsupport.Kubectl {

    Kubectl(EmbeddedApiServer server, Path dir) {
        super(dir);
        server.writeKubeconfig(dir.resolve("kubeconfig"));
    }
}
