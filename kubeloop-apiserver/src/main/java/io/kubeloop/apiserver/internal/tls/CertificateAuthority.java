package io.kubeloop.apiserver.internal.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A self-signed certificate authority (ECDSA P-256) that issues the server's serving certificate and the
 * client certificates users log in with. It lives in memory, or in a folder ({@link #loadOrCreate}) so
 * that kubeconfigs written against it keep working after a restart.
 *
 * <p>Validity is judged by the TLS peers against their own wall clocks, so the {@code now} passed in must
 * be real time; certificates start an hour before {@code now} to tolerate clock skew between machines.
 * {@link #toString()} never shows the key.
 */
public final class CertificateAuthority {

    /** The files {@link #loadOrCreate} uses: the CA certificate, and its PKCS#8 key (mode 600). */
    public static final String CERTIFICATE_FILE = "ca.crt";

    public static final String KEY_FILE = "ca.key";

    static final Duration CA_VALIDITY = Duration.ofDays(3650);
    static final Duration LEAF_VALIDITY = Duration.ofDays(365);
    private static final Duration SKEW = Duration.ofHours(1);

    private final X509Certificate certificate;
    private final PrivateKey key;

    private CertificateAuthority(X509Certificate certificate, PrivateKey key) {
        this.certificate = certificate;
        this.key = key;
    }

    /** A new CA whose certificate has subject {@code CN=commonName}. */
    public static CertificateAuthority generate(String commonName, Instant now) {
        Objects.requireNonNull(commonName, "commonName");
        try {
            KeyPair pair = newKeyPair();
            X509Certificate cert = new CertificateBuilder()
                    .subject(commonName, List.of())
                    .publicKey(pair.getPublic())
                    .validity(now.minus(SKEW), now.plus(CA_VALIDITY))
                    .certificateAuthority()
                    .sign(null, pair.getPrivate());
            return new CertificateAuthority(cert, pair.getPrivate());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(
                    "cannot generate a certificate authority: " + e.getClass().getSimpleName(), e);
        }
    }

    /**
     * The CA kept in {@code dir} ({@value #CERTIFICATE_FILE} and {@value #KEY_FILE}); when neither file exists,
     * generates one and writes both, the key with owner-only permissions.
     *
     * @throws IllegalArgumentException if only one of the files exists, or they do not hold an EC CA
     *     certificate and its matching PKCS#8 key
     */
    public static CertificateAuthority loadOrCreate(Path dir, Instant now) {
        Path certFile = dir.resolve(CERTIFICATE_FILE);
        Path keyFile = dir.resolve(KEY_FILE);
        boolean hasCert = Files.exists(certFile);
        boolean hasKey = Files.exists(keyFile);
        try {
            if (!hasCert && !hasKey) {
                CertificateAuthority ca = generate("kubeloop-ca", now);
                SecretFiles.write(keyFile, Pem.encode(Pem.PRIVATE_KEY, ca.key.getEncoded()));
                SecretFiles.write(certFile, ca.certificatePem());
                return ca;
            }
            if (hasCert != hasKey) {
                throw new IllegalArgumentException(dir + " has " + (hasCert ? CERTIFICATE_FILE : KEY_FILE) + " but no "
                        + (hasCert ? KEY_FILE : CERTIFICATE_FILE)
                        + "; remove it to generate a new CA, or add the other file");
            }
            return load(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot write the certificate authority to " + dir + ": "
                            + e.getClass().getSimpleName(),
                    e);
        }
    }

    /**
     * The CA kept in {@code dir} by {@link #loadOrCreate}.
     *
     * @throws IllegalArgumentException if a file is missing, or they do not hold an EC CA certificate and its
     *     matching PKCS#8 key
     */
    public static CertificateAuthority load(Path dir) {
        Path certFile = dir.resolve(CERTIFICATE_FILE);
        Path keyFile = dir.resolve(KEY_FILE);
        for (Path f : List.of(certFile, keyFile)) {
            if (!Files.isRegularFile(f)) {
                throw new IllegalArgumentException(
                        "no certificate authority in " + dir + ": " + f.getFileName() + " is missing");
            }
        }
        try {
            return load(
                    Files.readString(certFile, StandardCharsets.US_ASCII),
                    certFile,
                    Files.readString(keyFile, StandardCharsets.US_ASCII),
                    keyFile);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read the certificate authority in " + dir + ": "
                            + e.getClass().getSimpleName(),
                    e);
        }
    }

    private static CertificateAuthority load(String certPem, Path certFile, String keyPem, Path keyFile) {
        byte[] certDer = Pem.decode(Pem.CERTIFICATE, certPem);
        if (certDer == null) {
            throw new IllegalArgumentException(certFile + " holds no PEM CERTIFICATE block");
        }
        byte[] keyDer = Pem.decode(Pem.PRIVATE_KEY, keyPem);
        byte[] sec1 = Pem.decode(Pem.EC_PRIVATE_KEY, keyPem);
        if (keyDer == null && sec1 != null) {
            // openssl's "EC PRIVATE KEY" (SEC 1) is the inside of a PKCS#8 key; wrap it (P-256 assumed, checked below)
            keyDer = Der.sequence(
                    Der.integer(java.math.BigInteger.ZERO),
                    Der.sequence(Der.oid("1.2.840.10045.2.1"), Der.oid("1.2.840.10045.3.1.7")),
                    Der.octetString(sec1));
        }
        if (keyDer == null) {
            throw new IllegalArgumentException(keyFile + " holds no PEM PRIVATE KEY (PKCS#8) or EC PRIVATE KEY block");
        }
        X509Certificate cert;
        try {
            cert = (X509Certificate)
                    CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(certDer));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(certFile + " is not a valid X.509 certificate", e);
        }
        if (cert.getBasicConstraints() < 0) {
            throw new IllegalArgumentException(certFile + " is not a CA certificate (basicConstraints cA is not set)");
        }
        PrivateKey key;
        try {
            key = KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(keyDer));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(
                    keyFile + " is not a PKCS#8 EC private key (kubeloop CAs are ECDSA P-256)");
        }
        try {
            byte[] probe = "kubeloop-ca-key-check".getBytes(StandardCharsets.US_ASCII);
            Signature s = Signature.getInstance(CertificateBuilder.SIGNATURE_ALGORITHM);
            s.initSign(key);
            s.update(probe);
            byte[] sig = s.sign();
            s.initVerify(cert.getPublicKey());
            s.update(probe);
            if (!s.verify(sig)) {
                throw new IllegalArgumentException(keyFile + " is not the private key of " + certFile);
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(keyFile + " is not the private key of " + certFile);
        }
        return new CertificateAuthority(cert, key);
    }

    public X509Certificate certificate() {
        return certificate;
    }

    /** The CA certificate in PEM: what a kubeconfig's {@code certificate-authority-data} carries, base64'd. */
    public String certificatePem() {
        try {
            return Pem.encode(Pem.CERTIFICATE, certificate.getEncoded());
        } catch (CertificateEncodingException e) {
            throw new IllegalStateException("cannot encode the CA certificate", e);
        }
    }

    /** A TLS serving certificate for these host names and addresses (its subjectAltNames). */
    public IssuedCertificate issueServing(List<String> dnsNames, List<InetAddress> ipAddresses, Instant now) {
        return issue(
                new CertificateBuilder()
                        .subject("kubeloop-apiserver", List.of())
                        .serverAuth(dnsNames, ipAddresses),
                now,
                "a serving certificate");
    }

    /**
     * A client certificate that authenticates as {@code user} with {@code groups}: the subject is
     * {@code O=group..., CN=user}, as Kubernetes' x509 authenticator reads it.
     */
    public IssuedCertificate issueClient(String user, List<String> groups, Instant now) {
        Objects.requireNonNull(user, "user");
        if (user.isBlank()) {
            throw new IllegalArgumentException("a client certificate needs a non-blank user name");
        }
        for (String g : groups) {
            if (g == null || g.isBlank()) {
                throw new IllegalArgumentException(
                        "group names must be non-blank, got " + groups + " for user " + user);
            }
        }
        return issue(
                new CertificateBuilder().subject(user, groups).clientAuth(), now, "a client certificate for " + user);
    }

    private IssuedCertificate issue(CertificateBuilder builder, Instant now, String what) {
        try {
            KeyPair pair = newKeyPair();
            X509Certificate cert = builder.publicKey(pair.getPublic())
                    .validity(now.minus(SKEW), now.plus(LEAF_VALIDITY))
                    .sign(certificate, key);
            return new IssuedCertificate(cert, pair.getPrivate());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(
                    "cannot issue " + what + ": " + e.getClass().getSimpleName(), e);
        }
    }

    /** Whether {@code cert} carries this CA's signature. */
    public boolean signed(X509Certificate cert) {
        try {
            cert.verify(certificate.getPublicKey());
            return cert.getIssuerX500Principal().equals(certificate.getSubjectX500Principal());
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    private static KeyPair newKeyPair() throws GeneralSecurityException {
        KeyPairGenerator gen = KeyPairGenerator.getInstance("EC");
        gen.initialize(new ECGenParameterSpec("secp256r1"));
        return gen.generateKeyPair();
    }

    @Override
    public String toString() {
        return "CertificateAuthority[" + certificate.getSubjectX500Principal().getName() + ", notAfter="
                + certificate.getNotAfter().toInstant() + "]";
    }
}
