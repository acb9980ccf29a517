package io.kubeloop.apiserver.internal.tls;

import java.math.BigInteger;
import java.security.PrivateKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECPoint;
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

    /**
     * The private key as SEC 1 / RFC 5915 PEM ({@code -----BEGIN EC PRIVATE KEY-----}, with the curve and the
     * public key), the form kubeadm writes for EC keys: kubectl, openssl and fabric8 all read it, where
     * fabric8 takes an unlabelled PKCS#8 key for RSA.
     */
    public String privateKeyPem() {
        ECPrivateKey key = (ECPrivateKey) privateKey;
        ECPoint w = ((ECPublicKey) certificate.getPublicKey()).getW();
        byte[] point = new byte[65];
        point[0] = 0x04; // uncompressed
        System.arraycopy(fixed32(w.getAffineX()), 0, point, 1, 32);
        System.arraycopy(fixed32(w.getAffineY()), 0, point, 33, 32);
        byte[] sec1 = Der.sequence(
                Der.integer(BigInteger.ONE),
                Der.octetString(fixed32(key.getS())),
                Der.explicit(0, Der.oid(P256)),
                Der.explicit(1, Der.bitString(point, 0)));
        return Pem.encode(Pem.EC_PRIVATE_KEY, sec1);
    }

    private static final String P256 = "1.2.840.10045.3.1.7";

    /** A P-256 field element as exactly 32 big-endian octets. */
    private static byte[] fixed32(BigInteger value) {
        byte[] raw = value.toByteArray();
        byte[] out = new byte[32];
        int n = Math.min(raw.length, 32);
        System.arraycopy(raw, raw.length - n, out, 32 - n, n);
        return out;
    }

    private String subject() {
        return certificate.getSubjectX500Principal().getName();
    }

    @Override
    public String toString() {
        return "IssuedCertificate[" + subject() + ", notAfter="
                + certificate.getNotAfter().toInstant() + "]";
    }
}
