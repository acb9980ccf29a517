package io.kubeloop.client.config;

import java.io.ByteArrayInputStream;
import java.math.BigInteger;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPrivateKeySpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.RSAPrivateCrtKeySpec;
import java.util.ArrayList;
import java.util.List;

/**
 * Certificates and private keys from PEM, as kubectl reads them: {@code CERTIFICATE} blocks; keys as PKCS#8
 * ({@code PRIVATE KEY}: RSA, EC, Ed25519), PKCS#1 ({@code RSA PRIVATE KEY}) or SEC 1 ({@code EC PRIVATE KEY},
 * whose curve comes from its own parameters). Encrypted keys are refused, as kubectl refuses them. Every
 * failure is a {@link ConfigException} that names {@code where} (a file or a field) and never the content.
 */
final class PemMaterial {

    private static final String RSA = "1.2.840.113549.1.1.1";
    private static final String RSA_PSS = "1.2.840.113549.1.1.10";
    private static final String EC = "1.2.840.10045.2.1";
    private static final String ED25519 = "1.3.101.112";
    private static final String ED448 = "1.3.101.113";

    private PemMaterial() {}

    /** The certificates of every {@code CERTIFICATE} block; at least one. */
    static List<X509Certificate> certificates(byte[] pem, String where) {
        List<Pem.Block> blocks = blocks(pem, where);
        List<X509Certificate> out = new ArrayList<>();
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            for (Pem.Block b : blocks) {
                if (b.type().equals("CERTIFICATE")) {
                    out.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(b.der())));
                }
            }
        } catch (CertificateException e) {
            throw new ConfigException(where + ": a CERTIFICATE block is not a valid X.509 certificate");
        }
        if (out.isEmpty()) {
            throw new ConfigException(where + ": no PEM CERTIFICATE block found (the certificate must be PEM)");
        }
        return List.copyOf(out);
    }

    /** The first private key block. */
    static PrivateKey privateKey(byte[] pem, String where) {
        for (Pem.Block b : blocks(pem, where)) {
            switch (b.type()) {
                case "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY" -> {
                    if (b.hasHeaders()) {
                        throw new ConfigException(where + ": the " + b.type()
                                + " is encrypted (PEM headers); kubeconfig keys must not be encrypted");
                    }
                    try {
                        return switch (b.type()) {
                            case "PRIVATE KEY" -> pkcs8(b.der());
                            case "RSA PRIVATE KEY" -> pkcs1(b.der());
                            default -> sec1(b.der());
                        };
                    } catch (IllegalArgumentException | GeneralSecurityException e) {
                        throw new ConfigException(where + ": the " + b.type() + " cannot be read: " + safe(e));
                    }
                }
                case "ENCRYPTED PRIVATE KEY" ->
                    throw new ConfigException(
                            where + ": the key is an ENCRYPTED PRIVATE KEY; kubeconfig keys must not be encrypted");
                default -> {} // e.g. EC PARAMETERS before the key, as openssl ecparam -genkey writes it
            }
        }
        throw new ConfigException(
                where + ": no PEM private key block found (PRIVATE KEY, RSA PRIVATE KEY or " + "EC PRIVATE KEY)");
    }

    /** Fails unless {@code key} is the private half of {@code certificate}'s public key. */
    static void checkPair(X509Certificate certificate, PrivateKey key, String where) {
        PublicKey pub = certificate.getPublicKey();
        String alg =
                switch (key.getAlgorithm()) {
                    case "RSA" -> "SHA256withRSA";
                    case "EC" -> "SHA256withECDSA";
                    default -> key.getAlgorithm(); // Ed25519, Ed448
                };
        try {
            Signature sign = Signature.getInstance(alg);
            sign.initSign(key);
            byte[] probe = "kubeloop key check".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            sign.update(probe);
            byte[] sig = sign.sign();
            Signature verify = Signature.getInstance(alg);
            verify.initVerify(pub);
            verify.update(probe);
            if (verify.verify(sig)) {
                return;
            }
        } catch (GeneralSecurityException e) {
            // different key types, or an unusable key: the message below says it
        }
        throw new ConfigException(where + ": the client key does not match the client certificate's public key ("
                + key.getAlgorithm() + " key, " + pub.getAlgorithm() + " certificate)");
    }

    private static List<Pem.Block> blocks(byte[] pem, String where) {
        try {
            List<Pem.Block> blocks = Pem.read(pem);
            if (blocks.isEmpty()) {
                throw new ConfigException(where + ": not PEM (no -----BEGIN line)");
            }
            return blocks;
        } catch (IllegalArgumentException e) {
            throw new ConfigException(where + ": not valid PEM: " + e.getMessage());
        }
    }

    private static PrivateKey pkcs8(byte[] der) throws GeneralSecurityException {
        // PrivateKeyInfo ::= SEQUENCE { version, AlgorithmIdentifier { algorithm OID, params }, privateKey OCTET STRING
        // }
        List<Der.Element> info = Der.read(der).expect(Der.SEQUENCE).children();
        if (info.size() < 3) {
            throw new IllegalArgumentException("a PKCS#8 PrivateKeyInfo needs version, algorithm and key");
        }
        String oid = info.get(1).expect(Der.SEQUENCE).children().get(0).oid();
        String algorithm =
                switch (oid) {
                    case RSA -> "RSA";
                    case RSA_PSS -> "RSASSA-PSS";
                    case EC -> "EC";
                    case ED25519 -> "Ed25519";
                    case ED448 -> "Ed448";
                    default -> throw new IllegalArgumentException("unsupported key algorithm " + oid);
                };
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
    }

    private static PrivateKey pkcs1(byte[] der) throws GeneralSecurityException {
        // RSAPrivateKey ::= SEQUENCE { version, n, e, d, p, q, dP, dQ, qInv [, otherPrimeInfos] }
        List<Der.Element> f = Der.read(der).expect(Der.SEQUENCE).children();
        if (f.size() < 9) {
            throw new IllegalArgumentException("a PKCS#1 RSAPrivateKey needs 9 fields, found " + f.size());
        }
        if (f.size() > 9 || f.get(0).integer().signum() != 0) {
            throw new IllegalArgumentException("multi-prime RSA keys are not supported");
        }
        BigInteger[] v = new BigInteger[8];
        for (int i = 0; i < 8; i++) {
            v[i] = f.get(i + 1).integer();
        }
        return KeyFactory.getInstance("RSA")
                .generatePrivate(new RSAPrivateCrtKeySpec(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]));
    }

    private static PrivateKey sec1(byte[] der) throws GeneralSecurityException {
        // ECPrivateKey ::= SEQUENCE { version 1, privateKey OCTET STRING, [0] parameters OID, [1] publicKey BIT STRING
        // }
        List<Der.Element> f = Der.read(der).expect(Der.SEQUENCE).children();
        if (f.size() < 2 || f.get(0).integer().intValue() != 1) {
            throw new IllegalArgumentException("not a SEC 1 ECPrivateKey (version 1, private key)");
        }
        BigInteger s = new BigInteger(1, f.get(1).expect(Der.OCTET_STRING).value());
        String curve = null;
        for (Der.Element e : f.subList(2, f.size())) {
            if (e.tag() == 0xA0) {
                curve = e.children().get(0).oid();
            }
        }
        if (curve == null) {
            throw new IllegalArgumentException("the EC key names no curve (SEC 1 parameters missing)");
        }
        AlgorithmParameters params = AlgorithmParameters.getInstance("EC");
        try {
            params.init(new ECGenParameterSpec(curve));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("unsupported EC curve " + curve);
        }
        ECParameterSpec spec = params.getParameterSpec(ECParameterSpec.class);
        return KeyFactory.getInstance("EC").generatePrivate(new ECPrivateKeySpec(s, spec));
    }

    /** A failure's message, which for DER, PEM and key-factory errors names a structure, never key bytes. */
    private static String safe(Exception e) {
        String m = e.getMessage();
        if (m == null || m.isBlank()) {
            return e.getClass().getSimpleName();
        }
        m = m.lines().findFirst().orElse("");
        return m.length() > 160 ? m.substring(0, 160) + "..." : m;
    }
}
