package io.kubeloop.apiserver.tls;

import java.security.PrivateKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.Objects;

/**
 * A certificate and its private key, as issued by a {@link CertificateAuthority}. {@link #toString()}
 * names the subject only: the key never appears in logs.
 */
public final class IssuedCertificate {

    private final X509Certificate certificate;
    private final PrivateKey privateKey;

    IssuedCertificate(X509Certificate certificate, PrivateKey privateKey) {
        this.certificate = Objects.requireNonNull(certificate, "certificate");
        this.privateKey = Objects.requireNonNull(privateKey, "privateKey");
    }

    public X509Certificate certificate() {
        return certificate;
    }

    public PrivateKey privateKey() {
        return privateKey;
    }

    /** The certificate in PEM ({@code -----BEGIN CERTIFICATE-----}). */
    public String certificatePem() {
        try {
            return Pem.encode(Pem.CERTIFICATE, certificate.getEncoded());
        } catch (CertificateEncodingException e) {
            throw new IllegalStateException("cannot encode the certificate of " + subject(), e);
        }
    }

    /** The private key in PKCS#8 PEM ({@code -----BEGIN PRIVATE KEY-----}), which kubectl and openssl read. */
    public String privateKeyPem() {
        return Pem.encode(Pem.PRIVATE_KEY, privateKey.getEncoded());
    }

    private String subject() {
        return certificate.getSubjectX500Principal().getName();
    }

    @Override
    public String toString() {
        return "IssuedCertificate[" + subject() + ", notAfter=" + certificate.getNotAfter().toInstant() + "]";
    }
}
