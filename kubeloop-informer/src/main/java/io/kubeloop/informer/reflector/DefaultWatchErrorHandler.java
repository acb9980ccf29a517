package io.kubeloop.informer.reflector;

import io.kubeloop.client.errors.ExpiredException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link WatchErrorHandler#LOGGING}. */
final class DefaultWatchErrorHandler {

    private static final Logger LOG = LoggerFactory.getLogger(Reflector.class);

    private DefaultWatchErrorHandler() {}

    static void log(String reflectorName, Throwable error) {
        if (error instanceof ExpiredException) {
            LOG.info(
                    "{}: watch closed: the resourceVersion is too old, relisting: {}",
                    reflectorName,
                    Failures.summary(error));
        } else {
            LOG.warn("{}: failed to list or watch: {}", reflectorName, Failures.summary(error));
        }
    }
}
