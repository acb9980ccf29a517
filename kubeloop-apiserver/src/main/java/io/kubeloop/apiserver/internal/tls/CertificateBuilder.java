package io.kubeloop.apiserver.internal.tls;

import java.io.ByteArrayInputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Builds and signs one X.509 v3 certificate with ECDSA P-256 / SHA-256: a CA (basicConstraints CA,
 * keyCertSign) or a leaf for TLS serving and/or client authentication. Mutable, single use.
 *
 * <p>Every certificate carries subject and authority key identifiers (RFC 5280 method 1: SHA-1 of the
 * public key bits), so chains resolve the same way in Go (kubectl) and Java.
 */
final class CertificateBuilder {

    static final String SIGNATURE_ALGORITHM = "SHA256withECDSA";
    private static final String ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2";
    private static final String COMMON_NAME = "2.5.4.3";
    private static final String ORGANIZATION = "2.5.4.10";
    private static final SecureRandom RANDOM = new SecureRandom();

    private byte[] subject;
    private PublicKey publicKey;
    private Instant notBefore;
    private Instant notAfter;
    private boolean ca;
    private boolean serverAuth;
    private boolean clientAuth;
    private final List<String> dnsNames = new ArrayList<>();
    private final List<InetAddress> ipAddresses = new ArrayList<>();

    /** The subject {@code O=org1, O=org2, CN=commonName}: Kubernetes reads CN as the user, O as groups. */
    CertificateBuilder subject(String commonName, List<String> organizations) {
        List<byte[]> rdns = new ArrayList<>();
        for (String o : organizations) {
            rdns.add(Der.set(Der.sequence(Der.oid(ORGANIZATION), Der.utf8String(o))));
        }
        rdns.add(Der.set(Der.sequence(Der.oid(COMMON_NAME), Der.utf8String(commonName))));
        this.subject = Der.sequence(rdns.toArray(byte[][]::new));
        return this;
    }

    CertificateBuilder publicKey(PublicKey key) {
        this.publicKey = key;
        return this;
    }

    CertificateBuilder validity(Instant notBefore, Instant notAfter) {
        this.notBefore = notBefore;
        this.notAfter = notAfter;
        return this;
    }

    CertificateBuilder certificateAuthority() {
        this.ca = true;
        return this;
    }

    CertificateBuilder serverAuth(List<String> dnsNames, List<InetAddress> ipAddresses) {
        this.serverAuth = true;
        this.dnsNames.addAll(dnsNames);
        this.ipAddresses.addAll(ipAddresses);
        return this;
    }

    CertificateBuilder clientAuth() {
        this.clientAuth = true;
        return this;
    }

    /** Signs with the issuer's key; a CA signs itself by passing its own subject, key and certificate = null. */
    X509Certificate sign(X509Certificate issuer, PrivateKey issuerKey) throws GeneralSecurityException {
        byte[] issuerName =
                issuer == null ? subject : issuer.getSubjectX500Principal().getEncoded();
        PublicKey issuerPublic = issuer == null ? publicKey : issuer.getPublicKey();
        byte[] algorithm = Der.sequence(Der.oid(ECDSA_WITH_SHA256));
        byte[] tbs = Der.sequence(
                Der.explicit(0, Der.integer(BigInteger.TWO)), // v3
                Der.integer(serial()),
                algorithm,
                issuerName,
                Der.sequence(Der.time(notBefore), Der.time(notAfter)),
                subject,
                publicKey.getEncoded(), // SubjectPublicKeyInfo, as X.509 wants it
                Der.explicit(
                        3, Der.sequence(extensions(keyIdentifier(issuerPublic)).toArray(byte[][]::new))));
        Signature signer = Signature.getInstance(SIGNATURE_ALGORITHM);
        signer.initSign(issuerKey);
        signer.update(tbs);
        byte[] der = Der.sequence(tbs, algorithm, Der.bitString(signer.sign(), 0));
        return (X509Certificate)
                CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(der));
    }

    private List<byte[]> extensions(byte[] authorityKeyId) throws GeneralSecurityException {
        List<byte[]> ext = new ArrayList<>();
        // basicConstraints (critical): cA TRUE for the CA, an empty sequence (cA FALSE) for leaves.
        ext.add(extension("2.5.29.19", true, ca ? Der.sequence(Der.bool(true)) : Der.sequence()));
        // keyUsage (critical): CA = keyCertSign + cRLSign + digitalSignature (bits 5, 6, 0); leaf = digitalSignature.
        ext.add(extension(
                "2.5.29.15",
                true,
                ca ? Der.bitString(new byte[] {(byte) 0x86}, 1) : Der.bitString(new byte[] {(byte) 0x80}, 7)));
        if (serverAuth || clientAuth) {
            List<byte[]> purposes = new ArrayList<>();
            if (serverAuth) {
                purposes.add(Der.oid("1.3.6.1.5.5.7.3.1"));
            }
            if (clientAuth) {
                purposes.add(Der.oid("1.3.6.1.5.5.7.3.2"));
            }
            ext.add(extension("2.5.29.37", false, Der.sequence(purposes.toArray(byte[][]::new))));
        }
        if (!dnsNames.isEmpty() || !ipAddresses.isEmpty()) {
            List<byte[]> names = new ArrayList<>();
            for (String dns : dnsNames) {
                names.add(Der.implicitPrimitive(2, dns.getBytes(StandardCharsets.US_ASCII))); // dNSName IA5String
            }
            for (InetAddress ip : ipAddresses) {
                names.add(Der.implicitPrimitive(7, ip.getAddress())); // iPAddress, 4 or 16 octets
            }
            ext.add(extension("2.5.29.17", false, Der.sequence(names.toArray(byte[][]::new))));
        }
        ext.add(extension("2.5.29.14", false, Der.octetString(keyIdentifier(publicKey))));
        ext.add(extension("2.5.29.35", false, Der.sequence(Der.implicitPrimitive(0, authorityKeyId))));
        return ext;
    }

    private static byte[] extension(String oid, boolean critical, byte[] value) {
        return critical
                ? Der.sequence(Der.oid(oid), Der.bool(true), Der.octetString(value))
                : Der.sequence(Der.oid(oid), Der.octetString(value));
    }

    /** RFC 5280 §4.2.1.2 method 1: SHA-1 of the subjectPublicKey BIT STRING's bits. */
    static byte[] keyIdentifier(PublicKey key) throws GeneralSecurityException {
        byte[] spki = key.getEncoded();
        int[] outer = header(spki, 0); // SEQUENCE { algorithm, subjectPublicKey }
        int[] algorithm = header(spki, outer[0]); // AlgorithmIdentifier
        int[] bits = header(spki, algorithm[0] + algorithm[1]); // BIT STRING
        byte[] keyBits = Arrays.copyOfRange(spki, bits[0] + 1, bits[0] + bits[1]); // skip the unused-bits octet
        return MessageDigest.getInstance("SHA-1").digest(keyBits);
    }

    /** Reads the tag and length at {@code at}; returns {content offset, content length}. */
    private static int[] header(byte[] der, int at) {
        int first = der[at + 1] & 0xFF;
        if (first < 0x80) {
            return new int[] {at + 2, first};
        }
        int n = first & 0x7F;
        int length = 0;
        for (int i = 0; i < n; i++) {
            length = (length << 8) | (der[at + 2 + i] & 0xFF);
        }
        return new int[] {at + 2 + n, length};
    }

    /** A positive 127-bit serial: unique in practice, and within RFC 5280's 20 octets. */
    private static BigInteger serial() {
        return new BigInteger(127, RANDOM).setBit(120);
    }
}
