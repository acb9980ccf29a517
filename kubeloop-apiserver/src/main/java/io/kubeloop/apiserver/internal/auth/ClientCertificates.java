package io.kubeloop.apiserver.internal.auth;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsExchange;
import java.security.GeneralSecurityException;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * Kubernetes' x509 authenticator: a client certificate signed by the cluster CA, with extended key usage
 * clientAuth, authenticates as its subject's CN, in the groups named by its O values.
 *
 * <p>The TLS handshake already checked the chain against the CA (a client that offers a certificate the CA
 * did not sign does not get a connection); the checks here are repeated so that identity never rests on the
 * handshake configuration alone.
 */
final class ClientCertificates {

    private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

    /** The outcome for one request: no certificate, a rejected one, or a user. */
    sealed interface Result permits None, Rejected, Authenticated {}

    record None() implements Result {}

    record Rejected(String reason) implements Result {}

    record Authenticated(UserInfo user) implements Result {}

    private final X509Certificate ca;

    ClientCertificates(X509Certificate ca) {
        this.ca = ca;
    }

    Result authenticate(HttpExchange exchange) {
        if (!(exchange instanceof HttpsExchange https)) {
            return new None();
        }
        Certificate[] chain;
        try {
            chain = https.getSSLSession().getPeerCertificates();
        } catch (SSLPeerUnverifiedException noCertificate) {
            return new None();
        }
        if (chain.length == 0 || !(chain[0] instanceof X509Certificate cert)) {
            return new None();
        }
        try {
            cert.verify(ca.getPublicKey());
            cert.checkValidity(); // the wall clock, as the TLS peer's
        } catch (GeneralSecurityException e) {
            return new Rejected("client certificate not signed by the cluster CA, or expired");
        }
        try {
            List<String> usages = cert.getExtendedKeyUsage();
            if (usages == null || !usages.contains(CLIENT_AUTH)) {
                return new Rejected("client certificate lacks extended key usage clientAuth");
            }
        } catch (GeneralSecurityException e) {
            return new Rejected("client certificate has an unreadable extended key usage");
        }
        String user = null;
        Set<String> groups = new LinkedHashSet<>();
        try {
            for (Rdn rdn : new LdapName(cert.getSubjectX500Principal().getName()).getRdns()) {
                // multi-valued RDNs (O=a+O=b) are flattened by LdapName's attribute view
                var attributes = rdn.toAttributes().getAll();
                while (attributes.hasMore()) {
                    var attribute = attributes.next();
                    var values = attribute.getAll();
                    while (values.hasMore()) {
                        String value = String.valueOf(values.next());
                        if (attribute.getID().equalsIgnoreCase("CN") && user == null) {
                            user = value;
                        } else if (attribute.getID().equalsIgnoreCase("O")) {
                            groups.add(value);
                        }
                    }
                }
            }
        } catch (javax.naming.NamingException e) {
            return new Rejected("client certificate subject cannot be read");
        }
        if (user == null || user.isEmpty()) {
            return new Rejected("client certificate subject has no CN");
        }
        groups.add(UserInfo.SYSTEM_AUTHENTICATED);
        return new Authenticated(new UserInfo(user, "", new ArrayList<>(groups), Map.of()));
    }
}
