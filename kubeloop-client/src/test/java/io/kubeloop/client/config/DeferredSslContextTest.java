package io.kubeloop.client.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.KeyManagementException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.Test;

class DeferredSslContextTest {

    @Test
    void makesTheRealContextAtFirstUseOnlyAndOnce() throws Exception {
        AtomicInteger made = new AtomicInteger();
        SSLContext real = SSLContext.getInstance("TLS");
        real.init(null, null, null);
        SSLContext deferred = new DeferredSslContext(() -> {
            made.incrementAndGet();
            return real;
        });
        assertThat(made).hasValue(0);

        SSLEngine engine = deferred.createSSLEngine("example.com", 443);
        assertThat(engine.getPeerHost()).isEqualTo("example.com");
        assertThat(deferred.getDefaultSSLParameters().getProtocols()).isNotEmpty();
        assertThat(deferred.getClientSessionContext()).isSameAs(real.getClientSessionContext());
        assertThat(made).hasValue(1);
    }

    @Test
    void aFailureReachesEveryUseAndTheNextUseTriesAgain() {
        AtomicInteger attempts = new AtomicInteger();
        SSLContext deferred = new DeferredSslContext(() -> {
            attempts.incrementAndGet();
            throw new IllegalStateException("cannot set up TLS: KeyStoreException");
        });
        assertThatThrownBy(deferred::createSSLEngine)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("cannot set up TLS: KeyStoreException");
        assertThatThrownBy(deferred::getSocketFactory).isInstanceOf(IllegalStateException.class);
        assertThat(attempts).hasValue(2);
    }

    @Test
    void cannotBeInitializedAgain() {
        SSLContext deferred = new DeferredSslContext(() -> {
            throw new AssertionError("not made");
        });
        assertThatThrownBy(() -> deferred.init(null, null, null))
                .isInstanceOf(KeyManagementException.class)
                .hasMessageContaining("set up from the client configuration");
    }
}
