package io.kubeloop.client.config;

import java.security.KeyManagementException;
import java.security.SecureRandom;
import java.util.function.Supplier;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

/**
 * An {@link SSLContext} whose real context is made when TLS is first used. Setting up JSSE (its provider, cipher
 * suites and, with the JVM's default roots, every certificate in {@code cacerts}) costs a cold JVM a fifth of a
 * second or more, which a client of a plain-HTTP server, such as the embedded API server, never needs.
 *
 * <p>Invariant: every call is passed to the one real context, made at most once; until then nothing of JSSE is
 * loaded. If it cannot be made, each use fails with an {@link IllegalStateException} naming the reason (and the
 * next use tries again), so no connection is ever made without the configured checks.
 */
final class DeferredSslContext extends SSLContext {

    DeferredSslContext(Supplier<SSLContext> real) {
        super(new Spi(real), null, "TLS");
    }

    private static final class Spi extends SSLContextSpi {
        private final Supplier<SSLContext> source;
        private volatile SSLContext real;

        Spi(Supplier<SSLContext> source) {
            this.source = source;
        }

        private SSLContext real() {
            SSLContext r = real;
            if (r == null) {
                synchronized (this) {
                    r = real;
                    if (r == null) {
                        r = source.get();
                        real = r;
                    }
                }
            }
            return r;
        }

        @Override
        protected void engineInit(KeyManager[] km, TrustManager[] tm, SecureRandom random)
                throws KeyManagementException {
            throw new KeyManagementException("this context is set up from the client configuration");
        }

        @Override
        protected SSLSocketFactory engineGetSocketFactory() {
            return real().getSocketFactory();
        }

        @Override
        protected SSLServerSocketFactory engineGetServerSocketFactory() {
            return real().getServerSocketFactory();
        }

        @Override
        protected SSLEngine engineCreateSSLEngine() {
            return real().createSSLEngine();
        }

        @Override
        protected SSLEngine engineCreateSSLEngine(String host, int port) {
            return real().createSSLEngine(host, port);
        }

        @Override
        protected SSLSessionContext engineGetServerSessionContext() {
            return real().getServerSessionContext();
        }

        @Override
        protected SSLSessionContext engineGetClientSessionContext() {
            return real().getClientSessionContext();
        }

        @Override
        protected SSLParameters engineGetDefaultSSLParameters() {
            return real().getDefaultSSLParameters();
        }

        @Override
        protected SSLParameters engineGetSupportedSSLParameters() {
            return real().getSupportedSSLParameters();
        }
    }
}
