package io.kubeloop.informer.cache;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test during which a cached object was mutated. Registered for every test of kubeloop-informer through
 * {@code META-INF/services/org.junit.jupiter.api.extension.Extension} (with extension autodetection on in
 * {@code junit-platform.properties}); the suite runs with the detector on ({@code kubeloop.cacheMutationDetector}
 * in the module's surefire configuration). A mutation the periodic check finds after a test ended fails the test
 * that runs next.
 */
public final class CacheMutationCheckExtension implements AfterEachCallback {

    @Override
    public void afterEach(ExtensionContext context) {
        CacheMutationDetector.checkNow();
    }
}
