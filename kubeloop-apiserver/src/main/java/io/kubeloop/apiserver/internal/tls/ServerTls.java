package io.kubeloop.apiserver.internal.tls;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;

/**
 * The embedded server's TLS: a serving certificate issued at start by the {@link CertificateAuthority}
 * (subjectAltNames localhost, 127.0.0.1, ::1 and the bound host), client certificates of that same CA
 * requested but optional (so bearer tokens work too), TLS 1.2 and 1.3 only, and the administrator's client
 * certificate ({@code CN=kubeloop-admin, O=system:masters}) that the server's own kubeconfig uses.
 */
public final class ServerTls {

    /** The only protocol versions offered; kube-apiserver's default minimum is TLS 1.2 too. */
    static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    public static final String ADMIN_USER = "kubeloop-admin";
    public static final String ADMIN_GROUP = "system:masters";

    private final CertificateAuthority authority;
    private final IssuedCertificate serving;
    private final IssuedCertificate admin;
    private final SSLContext context;

    private ServerTls(
            CertificateAuthority authority, IssuedCertificate serving, IssuedCertificate admin, SSLContext context) {
        this.authority = authority;
        this.serving = serving;
        this.admin = admin;
        this.context = context;
    }

    /**
     * TLS for a server bound to {@code host}, with the CA kept in {@code caDirectory} (see
     * {@link CertificateAuthority#loadOrCreate}) or, when that is null, a new in-memory CA.
     *
     * <p>Certificates are dated by the wall clock, not the server's injectable clock: their validity is
     * judged by clients against their own real clocks.
     */
    public static ServerTls start(Path caDirectory, InetAddress host) {
        Instant now = Instant.now();
        CertificateAuthority ca = caDirectory == null
                ? CertificateAuthority.generate("kubeloop-ca", now)
                : CertificateAuthority.loadOrCreate(caDirectory, now);
        return create(ca, host, now);
    }

    /** A client certificate of this server's CA for {@code user} in {@code groups}, dated now. */
    public IssuedCertificate issueClient(String user, String... groups) {
        return authority.issueClient(user, List.of(groups), Instant.now()); // wall clock: see start()
    }

    /** Issues the serving and admin certificates for a server bound to {@code host}. */
    public static ServerTls create(CertificateAuthority authority, InetAddress host, Instant now) {
        IssuedCertificate serving = authority.issueServing(List.of("localhost"), ipAddresses(host), now);
        IssuedCertificate admin = authority.issueClient(ADMIN_USER, List.of(ADMIN_GROUP), now);
        try {
            char[] password = new char[0]; // the key store never leaves memory
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("serving", serving.privateKey(), password, new Certificate[] {
                serving.certificate(), authority.certificate()
            });
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, password);
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", authority.certificate());
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), new SecureRandom());
            return new ServerTls(authority, serving, admin, context);
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot set up TLS: " + e.getClass().getSimpleName(), e);
        }
    }

    private static List<InetAddress> ipAddresses(InetAddress host) {
        Set<InetAddress> ips = new LinkedHashSet<>();
        try {
            ips.add(InetAddress.getByName("127.0.0.1"));
            ips.add(InetAddress.getByName("::1"));
        } catch (UnknownHostException impossible) {
            throw new IllegalStateException(impossible);
        }
        if (!host.isAnyLocalAddress()) {
            ips.add(host);
        }
        return new ArrayList<>(ips);
    }

    /** Binds an HTTPS server that speaks this TLS; the caller sets its handler and executor and starts it. */
    public HttpsServer bind(InetSocketAddress address, int backlog) throws IOException {
        HttpsServer server = HttpsServer.create(address, backlog);
        server.setHttpsConfigurator(new HttpsConfigurator(context) {
            @Override
            public void configure(HttpsParameters params) {
                SSLParameters p = getSSLContext().getDefaultSSLParameters();
                p.setProtocols(PROTOCOLS);
                p.setWantClientAuth(true); // a client certificate is one way to log in, a bearer token another
                params.setSSLParameters(p);
            }
        });
        return server;
    }

    public CertificateAuthority authority() {
        return authority;
    }

    /** The administrator's client certificate, in group system:masters. */
    public IssuedCertificate admin() {
        return admin;
    }

    /** The serving certificate (its subjectAltNames are the names clients may use). */
    public IssuedCertificate serving() {
        return serving;
    }

    @Override
    public String toString() {
        return "ServerTls[" + authority + "]";
    }
}
