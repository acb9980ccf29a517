package io.kubeloop.client.config;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Test-time key and certificate material, written independently of the code under test: key pairs from
 * KeyPairGenerator, PEM in PKCS#8, PKCS#1 and SEC 1, and self-signed X.509 certificates from a tiny DER writer.
 */
final class TestPki {

    private TestPki() {}

    static KeyPair rsa() {
        return generate("RSA", null);
    }

    static KeyPair ec(String curve) {
        return generate("EC", curve);
    }

    static KeyPair ed25519() {
        return generate("Ed25519", null);
    }

    private static KeyPair generate(String alg, String curve) {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance(alg);
            if (alg.equals("Ed25519")) {
                // no parameters
            } else if (curve == null) {
                g.initialize(2048);
            } else {
                g.initialize(new ECGenParameterSpec(curve));
            }
            return g.generateKeyPair();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    // ---- PEM ----

    static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    static String pkcs8(PrivateKey key) {
        return pem("PRIVATE KEY", key.getEncoded());
    }

    /** PKCS#1: the RSAPrivateKey inside the PKCS#8 envelope's OCTET STRING. */
    static String pkcs1(PrivateKey key) {
        byte[] inner = innerKey(key.getEncoded());
        return pem("RSA PRIVATE KEY", inner);
    }

    /** SEC 1 with the named curve and the public key, as openssl and kubeadm write it. */
    static String sec1(KeyPair pair, String curveOid) {
        ECPrivateKey key = (ECPrivateKey) pair.getPrivate();
        ECPublicKey pub = (ECPublicKey) pair.getPublic();
        int size = (key.getParams().getCurve().getField().getFieldSize() + 7) / 8;
        byte[] point = new byte[1 + 2 * size];
        point[0] = 4;
        System.arraycopy(fixed(pub.getW().getAffineX(), size), 0, point, 1, size);
        System.arraycopy(fixed(pub.getW().getAffineY(), size), 0, point, 1 + size, size);
        byte[] der = seq(
                integer(BigInteger.ONE),
                tlv(0x04, fixed(key.getS(), size)),
                tlv(0xA0, oid(curveOid)),
                tlv(0xA1, bitString(point)));
        return pem("EC PRIVATE KEY", der);
    }

    private static byte[] innerKey(byte[] pkcs8) {
        // SEQUENCE { INTEGER 0, SEQUENCE {...}, OCTET STRING inner }
        int[] pos = {0};
        header(pkcs8, pos); // outer SEQUENCE
        skip(pkcs8, pos); // version
        skip(pkcs8, pos); // algorithm
        int len = header(pkcs8, pos); // OCTET STRING
        byte[] out = new byte[len];
        System.arraycopy(pkcs8, pos[0], out, 0, len);
        return out;
    }

    private static int header(byte[] d, int[] pos) {
        pos[0]++; // tag
        int len = d[pos[0]++] & 0xFF;
        if (len > 0x80) {
            int n = len & 0x7F;
            len = 0;
            for (int i = 0; i < n; i++) {
                len = (len << 8) | (d[pos[0]++] & 0xFF);
            }
        }
        return len;
    }

    private static void skip(byte[] d, int[] pos) {
        int len = header(d, pos);
        pos[0] += len;
    }

    private static byte[] fixed(BigInteger v, int size) {
        byte[] raw = v.toByteArray();
        byte[] out = new byte[size];
        int n = Math.min(raw.length, size);
        System.arraycopy(raw, raw.length - n, out, size - n, n);
        return out;
    }

    // ---- certificates ----

    /** A self-signed v3 certificate for {@code pair} with the given DNS and IP subjectAltNames. */
    static X509Certificate selfSigned(KeyPair pair, String cn, List<String> dns, List<String> ips) {
        try {
            String keyAlg = pair.getPrivate().getAlgorithm();
            String sigAlg =
                    switch (keyAlg) {
                        case "RSA" -> "SHA256withRSA";
                        case "EdDSA", "Ed25519" -> "Ed25519";
                        default -> "SHA256withECDSA";
                    };
            byte[] algId =
                    switch (sigAlg) {
                        case "SHA256withRSA" -> seq(oid("1.2.840.113549.1.1.11"), new byte[] {5, 0});
                        case "Ed25519" -> seq(oid("1.3.101.112"));
                        default -> seq(oid("1.2.840.10045.4.3.2"));
                    };
            byte[] name = seq(set(seq(oid("2.5.4.3"), tlv(0x0C, cn.getBytes()))));
            Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
            DateTimeFormatter utc =
                    DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").withZone(ZoneOffset.UTC);
            byte[] validity = seq(
                    tlv(0x17, utc.format(now.minus(1, ChronoUnit.HOURS)).getBytes()),
                    tlv(0x17, utc.format(now.plus(1, ChronoUnit.DAYS)).getBytes()));
            List<byte[]> names = new ArrayList<>();
            for (String d : dns) {
                names.add(tlv(0x82, d.getBytes()));
            }
            for (String ip : ips) {
                names.add(tlv(0x87, InetAddress.getByName(ip).getAddress()));
            }
            byte[] san = seq(oid("2.5.29.17"), tlv(0x04, seq(names.toArray(new byte[0][]))));
            byte[] tbs = seq(
                    tlv(0xA0, integer(BigInteger.TWO)),
                    integer(BigInteger.valueOf(System.nanoTime())),
                    algId,
                    name,
                    validity,
                    name,
                    pair.getPublic().getEncoded(),
                    tlv(0xA3, seq(san)));
            Signature s = Signature.getInstance(sigAlg);
            s.initSign(pair.getPrivate());
            s.update(tbs);
            byte[] cert = seq(tbs, algId, bitString(s.sign()));
            return (X509Certificate)
                    CertificateFactory.getInstance("X.509").generateCertificate(new java.io.ByteArrayInputStream(cert));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static String pem(X509Certificate cert) {
        try {
            return pem("CERTIFICATE", cert.getEncoded());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    // ---- DER writer ----

    static byte[] tlv(int tag, byte[] value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(tag);
        int len = value.length;
        if (len < 0x80) {
            out.write(len);
        } else {
            byte[] l = BigInteger.valueOf(len).toByteArray();
            int off = l[0] == 0 ? 1 : 0;
            out.write(0x80 | (l.length - off));
            out.write(l, off, l.length - off);
        }
        out.writeBytes(value);
        return out.toByteArray();
    }

    static byte[] seq(byte[]... parts) {
        return tlv(0x30, concat(parts));
    }

    static byte[] set(byte[]... parts) {
        return tlv(0x31, concat(parts));
    }

    static byte[] integer(BigInteger v) {
        return tlv(0x02, v.toByteArray());
    }

    static byte[] bitString(byte[] bits) {
        byte[] v = new byte[bits.length + 1];
        System.arraycopy(bits, 0, v, 1, bits.length);
        return tlv(0x03, v);
    }

    static byte[] oid(String dotted) {
        String[] p = dotted.split("\\.");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(Integer.parseInt(p[0]) * 40 + Integer.parseInt(p[1]));
        for (int i = 2; i < p.length; i++) {
            long v = Long.parseLong(p[i]);
            byte[] tmp = new byte[10];
            int n = 0;
            do {
                tmp[n++] = (byte) (v & 0x7F);
                v >>>= 7;
            } while (v != 0);
            for (int j = n - 1; j >= 0; j--) {
                out.write(tmp[j] | (j > 0 ? 0x80 : 0));
            }
        }
        return tlv(0x06, out.toByteArray());
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
