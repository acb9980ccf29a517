package io.kubeloop.client.config;

import io.kubeloop.clock.Clock;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * Everything a transport needs to reach one API server as one user: the server URI, the default namespace,
 * the TLS material (trusted CAs, {@code tls-server-name}, the client certificate) as an {@link SSLContext}, and
 * the per-request {@link Credentials}. Immutable; build it from a kubeconfig, the pod's service account, or
 * by hand:
 *
 * <pre>{@code
 * ClientConfig config = ClientConfig.autodetect();           // KUBECONFIG, ~/.kube/config, or in-cluster
 * ClientConfig config = ClientConfig.fromKubeconfig(path, "staging");
 * ClientConfig config = ClientConfig.builder().server(uri).certificateAuthorityPem(ca).token(t).build();
 * HttpClient http = config.httpClientBuilder().build();
 * }</pre>
 *
 * TLS verification is on unless {@code insecure-skip-tls-verify} says otherwise. {@link #toString()} names the
 * server, namespace, source and kind of credential, never a secret.
 */
public final class ClientConfig {

    private final URI server;
    private final String namespace;
    private final boolean insecure;
    private final String tlsServerName;
    private final SSLContext sslContext;
    private final Credentials credentials;
    private final String source;
    private final String credentialKind;

    private ClientConfig(
            URI server,
            String namespace,
            boolean insecure,
            String tlsServerName,
            SSLContext sslContext,
            Credentials credentials,
            String source,
            String credentialKind) {
        this.server = server;
        this.namespace = namespace;
        this.insecure = insecure;
        this.tlsServerName = tlsServerName;
        this.sslContext = sslContext;
        this.credentials = credentials;
        this.source = source;
        this.credentialKind = credentialKind;
    }

    /** {@code KUBECONFIG}, else {@code ~/.kube/config}, else the pod's service account; see {@link ConfigLoader#autodetect()}. */
    public static ClientConfig autodetect() {
        return ConfigLoader.system().autodetect();
    }

    /** The current context of the kubeconfig at {@code file} (only that file). */
    public static ClientConfig fromKubeconfig(Path file) {
        return ConfigLoader.system().kubeconfig(file, null);
    }

    /** {@code context} of the kubeconfig at {@code file}; null for its current context. */
    public static ClientConfig fromKubeconfig(Path file, String context) {
        return ConfigLoader.system().kubeconfig(file, context);
    }

    /** The pod's service account; see {@link ConfigLoader#inCluster()}. */
    public static ClientConfig inCluster() {
        return ConfigLoader.system().inCluster();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The API server's base URI, e.g. {@code https://10.0.0.1:443}; may carry a path prefix. */
    public URI server() {
        return server;
    }

    /** The namespace for namespaced calls that name none: the context's, the pod's, or {@code default}. */
    public String namespace() {
        return namespace;
    }

    /** Whether the server's certificate is not checked ({@code insecure-skip-tls-verify}). */
    public boolean insecureSkipTlsVerify() {
        return insecure;
    }

    /** The name the server certificate is checked against instead of the URI host, if set. */
    public Optional<String> tlsServerName() {
        return Optional.ofNullable(tlsServerName);
    }

    /** Trusted CAs (or the JVM's roots), the server-name rule and the client certificate, if any. */
    public SSLContext sslContext() {
        return sslContext;
    }

    /** TLS 1.3 and 1.2, as kube-apiserver offers; a fresh copy each time. */
    public SSLParameters sslParameters() {
        SSLParameters p = new SSLParameters();
        p.setProtocols(Tls.PROTOCOLS.clone());
        return p;
    }

    /** The {@code Authorization} header source, asked per request. */
    public Credentials credentials() {
        return credentials;
    }

    /**
     * A {@link HttpClient.Builder} with this configuration's {@link #sslContext()} and {@link #sslParameters()};
     * the caller adds timeouts, executor and version.
     */
    public HttpClient.Builder httpClientBuilder() {
        return HttpClient.newBuilder().sslContext(sslContext).sslParameters(sslParameters());
    }

    /** The same configuration with another default namespace. */
    public ClientConfig withNamespace(String namespace) {
        return new ClientConfig(
                server,
                requireNamespace(namespace),
                insecure,
                tlsServerName,
                sslContext,
                credentials,
                source,
                credentialKind);
    }

    @Override
    public String toString() {
        return "ClientConfig[server=" + server + ", namespace=" + namespace + ", source=" + source + ", auth="
                + credentialKind + (insecure ? ", insecure-skip-tls-verify" : "")
                + (tlsServerName == null ? "" : ", tls-server-name=" + tlsServerName) + "]";
    }

    private static String requireNamespace(String namespace) {
        if (namespace == null || namespace.isBlank()) {
            throw new ConfigException("the namespace is empty");
        }
        return namespace.strip();
    }

    /**
     * Builds a {@link ClientConfig} by hand. The server is required; everything else is optional. At most one
     * of: a token (or token file), basic auth, an exec plugin; a client certificate may come with any of them
     * but not with a plugin. {@code insecureSkipTlsVerify} and a CA cannot be combined (as in client-go).
     * The token wins over a token file, as in kubectl.
     */
    public static final class Builder {
        private URI server;
        private String serverWhere = "server";
        private String namespace = "default";
        private byte[] caPem;
        private String caWhere;
        private boolean insecure;
        private String tlsServerName;
        private String token;
        private Path tokenFile;
        private String tokenFileWhere;
        private byte[] certPem;
        private String certWhere;
        private byte[] keyPem;
        private String keyWhere;
        private String username;
        private String password;
        private ExecConfig exec;
        private String userWhere = "builder";
        private String source = "builder";
        private Clock clock = Clock.system();

        private Builder() {}

        /** The API server, {@code https://host:port} (or {@code http://}); a bare {@code host:port} means https. */
        public Builder server(URI server) {
            this.server = Objects.requireNonNull(server, "server");
            return this;
        }

        public Builder server(String server) {
            Objects.requireNonNull(server, "server");
            try {
                return server(URI.create(server.contains("://") ? server : "https://" + server));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(serverWhere + ": not a URL: " + server);
            }
        }

        /** The CA certificates (PEM) that sign the server's certificate; default the JVM's roots. */
        public Builder certificateAuthorityPem(String pem) {
            return certificateAuthority(pem.getBytes(StandardCharsets.US_ASCII), "certificate-authority-data");
        }

        /** The CA certificates from a PEM file. */
        public Builder certificateAuthority(Path file) {
            return certificateAuthority(
                    ConfigFiles.read(file, "certificate-authority"), "certificate-authority " + file);
        }

        Builder certificateAuthority(byte[] pem, String where) {
            this.caPem = pem;
            this.caWhere = where;
            return this;
        }

        public Builder insecureSkipTlsVerify(boolean insecure) {
            this.insecure = insecure;
            return this;
        }

        /** Check the server certificate against this name instead of the URI host. */
        public Builder tlsServerName(String name) {
            this.tlsServerName = name == null || name.isBlank() ? null : name.strip();
            return this;
        }

        public Builder token(String token) {
            this.token = token == null || token.isEmpty() ? null : token;
            return this;
        }

        /** A token file, re-read as it rotates. */
        public Builder tokenFile(Path file) {
            return tokenFile(file, "tokenFile " + file);
        }

        Builder tokenFile(Path file, String where) {
            this.tokenFile = file;
            this.tokenFileWhere = where;
            return this;
        }

        /** A client certificate (chain) and its private key, PEM (PKCS#8, PKCS#1 RSA or SEC 1 EC). */
        public Builder clientCertificate(String certificatePem, String privateKeyPem) {
            return clientCertificate(
                    certificatePem.getBytes(StandardCharsets.US_ASCII),
                    "client-certificate-data",
                    privateKeyPem.getBytes(StandardCharsets.US_ASCII),
                    "client-key-data");
        }

        /** A client certificate and key from PEM files. */
        public Builder clientCertificate(Path certificateFile, Path keyFile) {
            return clientCertificate(
                    ConfigFiles.read(certificateFile, "client-certificate"),
                    "client-certificate " + certificateFile,
                    ConfigFiles.read(keyFile, "client-key"),
                    "client-key " + keyFile);
        }

        Builder clientCertificate(byte[] cert, String certWhere, byte[] key, String keyWhere) {
            this.certPem = cert;
            this.certWhere = certWhere;
            this.keyPem = key;
            this.keyWhere = keyWhere;
            return this;
        }

        public Builder basicAuth(String username, String password) {
            this.username = Objects.requireNonNull(username, "username");
            this.password = Objects.requireNonNull(password, "password");
            return this;
        }

        public Builder exec(ExecConfig exec) {
            this.exec = exec;
            return this;
        }

        /** The default namespace; default {@code default}. */
        public Builder namespace(String namespace) {
            this.namespace = requireNamespace(namespace);
            return this;
        }

        /**
         * The clock for token-file re-reads and exec credential expiry (wall time: expiry timestamps are wall
         * time); default the system clock. A test that steps a {@code FakeClock} passes the same one here and to
         * {@code KubernetesClient.builder(config).clock(...)}.
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** How errors name the user entry and toString names the source, e.g. "kubeconfig /x, context y". */
        Builder describedAs(String source, String userWhere) {
            this.source = source;
            this.userWhere = userWhere;
            this.serverWhere = userWhere;
            return this;
        }

        Builder serverWhere(String where) {
            this.serverWhere = where;
            return this;
        }

        /** @throws ConfigException naming the field at fault */
        public ClientConfig build() {
            if (server == null) {
                throw new ConfigException(serverWhere + ": no server is set");
            }
            String scheme = server.getScheme();
            if (scheme == null || !(scheme.equals("https") || scheme.equals("http")) || server.getHost() == null) {
                throw new ConfigException(
                        serverWhere + ": server must be an http or https URL with a host, was " + server);
            }
            if (insecure && caPem != null) {
                throw new ConfigException(
                        caWhere + ": a certificate authority and insecure-skip-tls-verify cannot " + "both be set");
            }
            int kinds =
                    (token != null || tokenFile != null ? 1 : 0) + (username != null ? 1 : 0) + (exec != null ? 1 : 0);
            if (kinds > 1) {
                throw new ConfigException(
                        userWhere + ": only one of token/tokenFile, username/password and exec " + "may be set");
            }
            if (exec != null && certPem != null) {
                throw new ConfigException(userWhere + ": a client certificate and an exec plugin cannot both be set");
            }
            List<X509Certificate> authorities = caPem == null ? List.of() : PemMaterial.certificates(caPem, caWhere);
            ClientKey clientKey = certPem == null ? null : ClientKey.fromPem(certPem, certWhere, keyPem, keyWhere);

            Credentials credentials;
            String kind;
            Supplier<Optional<ClientKey>> keySource;
            if (exec != null) {
                ExecCredentials e = new ExecCredentials(
                        exec,
                        new ExecCredentials.ClusterInfo(server.toString(), tlsServerName, insecure, caPem),
                        clock,
                        userWhere);
                credentials = e;
                kind = "exec " + exec.command();
                keySource = e::clientKey;
            } else {
                if (token != null) {
                    credentials = StaticCredentials.bearer(token);
                    kind = "token";
                } else if (tokenFile != null) {
                    credentials = new TokenFileCredentials(tokenFile, userWhere + ": " + tokenFileWhere, clock);
                    kind = "token file " + tokenFile;
                } else if (username != null) {
                    credentials = StaticCredentials.basic(username, password);
                    kind = "basic auth user " + username;
                } else {
                    credentials = Credentials.none();
                    kind = "none";
                }
                if (clientKey != null) {
                    kind = (kind.equals("none") ? "" : kind + " + ") + "client certificate "
                            + clientKey.chain().get(0).getSubjectX500Principal().getName();
                }
                Optional<ClientKey> fixed = Optional.ofNullable(clientKey);
                keySource = () -> fixed;
            }
            SSLContext ssl = Tls.context(authorities, insecure, tlsServerName, keySource);
            return new ClientConfig(server, namespace, insecure, tlsServerName, ssl, credentials, source, kind);
        }

        @Override
        public String toString() {
            return "ClientConfig.Builder[server=" + server + ", source=" + source + "]";
        }
    }
}
