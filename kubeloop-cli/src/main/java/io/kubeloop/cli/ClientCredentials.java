package io.kubeloop.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;

/**
 * A kubeconfig user's client certificate and private key, as key managers for a TLS client. The key may be
 * SEC 1 ({@code EC PRIVATE KEY}, what kubeloop and kubeadm write for EC keys), PKCS#1 ({@code RSA PRIVATE KEY})
 * or PKCS#8 ({@code PRIVATE KEY}). Neither the key nor the certificate ever appears in a message: errors name
 * only the kubeconfig field that was wrong.
 */
final class ClientCredentials {

    private static final Pattern PEM =
            Pattern.compile("-----BEGIN ([A-Z ]+)-----\\s*([A-Za-z0-9+/=\\s]+?)\\s*-----END \\1-----");
    private static final byte[] EC_PUBLIC_KEY = {0x06, 0x07, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01};
    private static final byte[] RSA_ENCRYPTION_AND_NULL = {
        0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00
    };

    private ClientCredentials() {}

    /**
     * Key managers presenting {@code certificatePem} (a chain, leaf first) with {@code keyPem}.
     *
     * @param source where the two came from, for messages, e.g. "the kubeconfig's user"
     * @throws IllegalStateException if either is not what it should be
     */
    static KeyManager[] keyManagers(byte[] certificatePem, byte[] keyPem, String source) {
        Certificate[] chain;
        try {
            chain = CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(certificatePem))
                    .toArray(Certificate[]::new);
        } catch (GeneralSecurityException e) {
            chain = new Certificate[0];
        }
        if (chain.length == 0) {
            throw new IllegalStateException(source + ": the client certificate is not a PEM certificate");
        }
        PrivateKey key = privateKey(keyPem, source);
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("client", key, new char[0], chain);
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(store, new char[0]);
            return kmf.getKeyManagers();
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalStateException(source + ": the client key does not fit the client certificate ("
                    + e.getClass().getSimpleName() + ")");
        }
    }

    static PrivateKey privateKey(byte[] keyPem, String source) {
        Matcher m = PEM.matcher(new String(keyPem, StandardCharsets.US_ASCII));
        String label = null;
        byte[] der = null;
        while (m.find()) {
            if (m.group(1).endsWith("PRIVATE KEY")) {
                label = m.group(1);
                try {
                    der = Base64.getMimeDecoder().decode(m.group(2));
                } catch (IllegalArgumentException e) {
                    der = null;
                }
                break;
            }
        }
        if (der == null) {
            throw new IllegalStateException(source + ": the client key is not a PEM private key (EC PRIVATE KEY, "
                    + "RSA PRIVATE KEY or PRIVATE KEY)");
        }
        try {
            return switch (label) {
                case "EC PRIVATE KEY" ->
                    KeyFactory.getInstance("EC")
                            .generatePrivate(
                                    new PKCS8EncodedKeySpec(pkcs8(concat(EC_PUBLIC_KEY, curveOf(der, source)), der)));
                case "RSA PRIVATE KEY" ->
                    KeyFactory.getInstance("RSA")
                            .generatePrivate(new PKCS8EncodedKeySpec(pkcs8(RSA_ENCRYPTION_AND_NULL, der)));
                case "PRIVATE KEY" -> pkcs8Key(der);
                default ->
                    throw new IllegalStateException(source + ": a " + label + " is not supported; use an "
                            + "unencrypted EC PRIVATE KEY, RSA PRIVATE KEY or PRIVATE KEY");
            };
        } catch (GeneralSecurityException | IndexOutOfBoundsException | IllegalArgumentException e) {
            throw new IllegalStateException(source + ": the client key is not a valid " + label);
        }
    }

    private static PrivateKey pkcs8Key(byte[] der) throws GeneralSecurityException {
        try {
            return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (GeneralSecurityException notEc) {
            return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der));
        }
    }

    /**
     * The curve OID (tag, length and value) of a SEC 1 key: SEQUENCE { INTEGER 1, OCTET STRING key,
     * [0] OID curve OPTIONAL, [1] BIT STRING public OPTIONAL }.
     */
    private static byte[] curveOf(byte[] sec1, String source) throws InvalidKeySpecException {
        if (sec1.length < 2 || sec1[0] != 0x30) {
            throw new InvalidKeySpecException("not a DER SEQUENCE");
        }
        int[] outer = header(sec1, 0);
        int i = outer[0];
        int end = outer[0] + outer[1];
        while (i < end) {
            int[] element = header(sec1, i);
            if ((sec1[i] & 0xff) == 0xa0) {
                return java.util.Arrays.copyOfRange(sec1, element[0], element[0] + element[1]);
            }
            i = element[0] + element[1];
        }
        throw new IllegalStateException(source + ": the EC PRIVATE KEY does not name its curve");
    }

    /** {start of content, content length} of the DER element at {@code at}. */
    private static int[] header(byte[] der, int at) {
        int first = der[at + 1] & 0xff;
        if (first < 0x80) {
            return new int[] {at + 2, first};
        }
        int octets = first & 0x7f;
        int length = 0;
        for (int k = 0; k < octets; k++) {
            length = (length << 8) | (der[at + 2 + k] & 0xff);
        }
        return new int[] {at + 2 + octets, length};
    }

    /** PKCS#8: SEQUENCE { INTEGER 0, SEQUENCE { algorithm }, OCTET STRING key }. */
    private static byte[] pkcs8(byte[] algorithm, byte[] key) {
        return tlv(0x30, concat(new byte[] {0x02, 0x01, 0x00}, tlv(0x30, algorithm), tlv(0x04, key)));
    }

    private static byte[] tlv(int tag, byte[] content) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(tag);
        int n = content.length;
        if (n < 0x80) {
            out.write(n);
        } else {
            int octets = n < 0x100 ? 1 : n < 0x10000 ? 2 : 3;
            out.write(0x80 | octets);
            for (int k = octets - 1; k >= 0; k--) {
                out.write(n >>> (8 * k));
            }
        }
        out.writeBytes(content);
        return out.toByteArray();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
