package io.kubeloop.client.config;

import java.net.InetAddress;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * Builds the client's {@link SSLContext}: which servers it trusts and which client certificate it shows.
 *
 * <ul>
 *   <li>Trust: the kubeconfig's CA certificates, or the JVM's default roots when none is given;
 *       {@code insecure-skip-tls-verify} trusts any server (and checks no name).
 *   <li>Server name: without {@code tls-server-name}, the trust manager is the JDK's PKIX one and the
 *       HttpClient's own endpoint identification checks the URI host, as usual. With {@code tls-server-name},
 *       java.net.http would still check the URI host (it always asks for HTTPS endpoint identification), so
 *       the trust manager here validates the chain without endpoint identification and then matches the
 *       leaf's subjectAltNames (DNS, with a leftmost-label wildcard; IP) against {@code tls-server-name}
 *       itself, as Go's crypto/tls does with ServerName. The SNI sent is still the URI host (java.net.http
 *       sets it), a documented difference.
 *   <li>Client certificate: a key manager that asks a supplier at every handshake, so an exec plugin's
 *       certificate can change between connections.
 * </ul>
 */
final class Tls {

    static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private Tls() {}

    /** The context, made at its first use ({@link DeferredSslContext}): a plain-HTTP client never sets up TLS. */
    static SSLContext context(
            List<X509Certificate> authorities,
            boolean insecure,
            String tlsServerName,
            Supplier<Optional<ClientKey>> clientKey) {
        return new DeferredSslContext(() -> create(authorities, insecure, tlsServerName, clientKey));
    }

    private static SSLContext create(
            List<X509Certificate> authorities,
            boolean insecure,
            String tlsServerName,
            Supplier<Optional<ClientKey>> clientKey) {
        try {
            TrustManager trust = insecure ? new TrustAll() : pkix(authorities, tlsServerName);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(
                    new X509ExtendedKeyManager[] {new DynamicKeyManager(clientKey)}, new TrustManager[] {trust}, null);
            return context;
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalStateException("cannot set up TLS: " + e.getClass().getSimpleName());
        }
    }

    private static TrustManager pkix(List<X509Certificate> authorities, String tlsServerName)
            throws GeneralSecurityException, java.io.IOException {
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        if (authorities.isEmpty()) {
            factory.init((KeyStore) null); // the JVM's default roots
        } else {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            for (int i = 0; i < authorities.size(); i++) {
                store.setCertificateEntry("ca-" + i, authorities.get(i));
            }
            factory.init(store);
        }
        X509TrustManager pkix = null;
        for (TrustManager tm : factory.getTrustManagers()) {
            if (tm instanceof X509TrustManager x) {
                pkix = x;
            }
        }
        if (pkix == null) {
            throw new GeneralSecurityException("no X509TrustManager");
        }
        return tlsServerName == null ? pkix : new ServerNameTrustManager(pkix, tlsServerName);
    }

    /**
     * Checks the chain with the PKIX trust manager's 2-argument method (no endpoint identification), then the
     * leaf against {@code serverName}.
     */
    static final class ServerNameTrustManager extends X509ExtendedTrustManager {
        private final X509TrustManager pkix;
        private final String serverName;

        ServerNameTrustManager(X509TrustManager pkix, String serverName) {
            this.pkix = pkix;
            this.serverName = serverName;
        }

        private void check(X509Certificate[] chain, String authType) throws CertificateException {
            pkix.checkServerTrusted(chain, authType);
            if (!matches(chain[0], serverName)) {
                throw new CertificateException("the server certificate is not valid for tls-server-name " + serverName);
            }
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            check(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            check(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            check(chain, authType);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            throw new CertificateException("a client does not check client certificates");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            checkClientTrusted(chain, authType);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            checkClientTrusted(chain, authType);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return pkix.getAcceptedIssuers();
        }
    }

    /** RFC 6125 matching on subjectAltNames only (Go ignores the common name): DNS with a leftmost wildcard, or IP. */
    static boolean matches(X509Certificate leaf, String name) {
        try {
            var sans = leaf.getSubjectAlternativeNames();
            if (sans == null) {
                return false;
            }
            boolean ip = isIpLiteral(name);
            for (List<?> san : sans) {
                int type = (Integer) san.get(0);
                String value = String.valueOf(san.get(1));
                if (ip && type == 7 && sameAddress(value, name)) {
                    return true;
                }
                if (!ip && type == 2 && dnsMatches(value, name)) {
                    return true;
                }
            }
            return false;
        } catch (CertificateParsingException e) {
            return false;
        }
    }

    private static boolean isIpLiteral(String name) {
        return name.contains(":") || name.matches("[0-9.]+");
    }

    private static boolean sameAddress(String a, String b) {
        try {
            return InetAddress.getByName(a).equals(InetAddress.getByName(b)); // literals: no lookup
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    private static boolean dnsMatches(String pattern, String name) {
        String p = pattern.toLowerCase(Locale.ROOT);
        String n = name.toLowerCase(Locale.ROOT);
        if (p.endsWith(".")) {
            p = p.substring(0, p.length() - 1);
        }
        if (n.endsWith(".")) {
            n = n.substring(0, n.length() - 1);
        }
        if (p.startsWith("*.")) {
            int dot = n.indexOf('.');
            return dot > 0
                    && n.substring(dot + 1).equals(p.substring(2))
                    && p.substring(2).contains(".");
        }
        return p.equals(n);
    }

    /** insecure-skip-tls-verify: any chain, any name. */
    static final class TrustAll extends X509ExtendedTrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {}

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {}

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }

    /**
     * Shows the supplier's current certificate, if any, whatever the server asks for (as Go does with one
     * cert). A supplier that fails (an exec plugin that cannot run) means no certificate here: the same
     * failure reaches the caller through {@link Credentials#authorization()}, which the transport asks before
     * each request, with its message intact rather than buried in a handshake error.
     */
    static final class DynamicKeyManager extends X509ExtendedKeyManager {
        private static final String ALIAS = "client";
        private final Supplier<Optional<ClientKey>> supplier;

        DynamicKeyManager(Supplier<Optional<ClientKey>> supplier) {
            this.supplier = supplier;
        }

        private Optional<ClientKey> current() {
            try {
                return supplier.get();
            } catch (ConfigException e) {
                return Optional.empty();
            }
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            return current().isPresent() ? ALIAS : null;
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
            return chooseClientAlias(keyType, issuers, null);
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return current().isPresent() ? new String[] {ALIAS} : null;
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return current().map(k -> k.chain().toArray(new X509Certificate[0])).orElse(null);
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return current().map(ClientKey::key).orElse(null);
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return null;
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return null;
        }
    }
}
