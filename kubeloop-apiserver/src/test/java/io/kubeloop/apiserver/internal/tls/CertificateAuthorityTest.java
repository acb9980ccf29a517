package io.kubeloop.apiserver.internal.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The certificates the CA issues, read back through the JDK's own X.509 parser and PKIX validator. */
class CertificateAuthorityTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

    @TempDir
    Path dir;

    @Test
    void theCaIsASelfSignedV3Authority() throws Exception {
        CertificateAuthority ca = CertificateAuthority.generate("kubeloop-ca", NOW);
        X509Certificate c = ca.certificate();
        assertThat(c.getVersion()).isEqualTo(3);
        assertThat(c.getSubjectX500Principal().getName()).isEqualTo("CN=kubeloop-ca");
        assertThat(c.getIssuerX500Principal()).isEqualTo(c.getSubjectX500Principal());
        assertThat(c.getBasicConstraints()).as("cA TRUE, no path length").isEqualTo(Integer.MAX_VALUE);
        assertThat(c.getKeyUsage()).containsExactly(true, false, false, false, false, true, true, false, false);
        assertThat(c.getCriticalExtensionOIDs()).containsExactlyInAnyOrder("2.5.29.19", "2.5.29.15");
        assertThat(c.getNotBefore().toInstant()).isEqualTo(NOW.minus(Duration.ofHours(1)));
        assertThat(c.getNotAfter().toInstant()).isEqualTo(NOW.plus(CertificateAuthority.CA_VALIDITY));
        assertThat(c.getSigAlgName()).isEqualTo("SHA256withECDSA");
        c.verify(c.getPublicKey());
        assertThat(keyId(c, "2.5.29.14")).isEqualTo(keyId(c, "2.5.29.35")).hasSize(20);
        byte[] spki = c.getPublicKey().getEncoded(); // P-256: the key bits are the last 65 bytes
        assertThat(keyId(c, "2.5.29.14"))
                .isEqualTo(java.security.MessageDigest.getInstance("SHA-1")
                        .digest(java.util.Arrays.copyOfRange(spki, spki.length - 65, spki.length)));
    }

    @Test
    void aServingCertificateNamesItsHostsAndChainsToTheCa() throws Exception {
        CertificateAuthority ca = CertificateAuthority.generate("kubeloop-ca", Instant.now());
        IssuedCertificate serving = ca.issueServing(
                List.of("localhost", "api.example"),
                List.of(InetAddress.getByName("127.0.0.1"), InetAddress.getByName("::1")),
                Instant.now());
        X509Certificate c = serving.certificate();
        assertThat(c.getSubjectAlternativeNames())
                .containsExactly(
                        List.of(2, "localhost"),
                        List.of(2, "api.example"),
                        List.of(7, "127.0.0.1"),
                        List.of(7, "0:0:0:0:0:0:0:1"));
        assertThat(c.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
        assertThat(c.getBasicConstraints()).isEqualTo(-1);
        assertThat(c.getKeyUsage()[0]).as("digitalSignature").isTrue();
        assertThat(keyId(c, "2.5.29.35")).isEqualTo(keyId(ca.certificate(), "2.5.29.14"));
        validate(ca, c);
        assertThat(ca.signed(c)).isTrue();
        assertThat(CertificateAuthority.generate("other", Instant.now()).signed(c))
                .isFalse();
    }

    @Test
    void aClientCertificateCarriesUserAndGroups() throws Exception {
        CertificateAuthority ca = CertificateAuthority.generate("kubeloop-ca", Instant.now());
        X509Certificate c = ca.issueClient("jane", List.of("devs", "system:masters"), Instant.now())
                .certificate();
        assertThat(c.getSubjectX500Principal().getName()).isEqualTo("CN=jane,O=system:masters,O=devs");
        assertThat(c.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.2");
        assertThat(c.getSubjectAlternativeNames()).isNull();
        validate(ca, c);
        assertThatThrownBy(() -> ca.issueClient(" ", List.of(), NOW)).hasMessageContaining("non-blank user");
        assertThatThrownBy(() -> ca.issueClient("a", List.of(""), NOW)).hasMessageContaining("group names");
    }

    @Test
    void datesFrom2050AreGeneralizedTime() throws Exception {
        Instant late = Instant.parse("2049-06-01T00:00:00Z");
        X509Certificate c = CertificateAuthority.generate("late", late).certificate();
        assertThat(c.getNotBefore().toInstant()).isEqualTo(late.minus(Duration.ofHours(1)));
        assertThat(c.getNotAfter().toInstant()).isEqualTo(late.plus(CertificateAuthority.CA_VALIDITY)); // 2059
    }

    @Test
    void aCaDirectoryIsCreatedOnceThenReused() throws Exception {
        Path caDir = dir.resolve("nested/ca");
        CertificateAuthority first = CertificateAuthority.loadOrCreate(caDir, NOW);
        assertThat(Files.getPosixFilePermissions(caDir.resolve("ca.key")))
                .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.readString(caDir.resolve("ca.key"))).startsWith("-----BEGIN PRIVATE KEY-----\n");
        CertificateAuthority again = CertificateAuthority.loadOrCreate(caDir, NOW.plusSeconds(60));
        assertThat(again.certificate()).isEqualTo(first.certificate());
        validate(first, again.issueClient("u", List.of(), Instant.now()).certificate());
        assertThat(CertificateAuthority.load(caDir).certificate()).isEqualTo(first.certificate());
    }

    @Test
    void aClientKeyIsSec1PemThatTheJdkReadsBack() throws Exception {
        CertificateAuthority ca = CertificateAuthority.generate("kubeloop-ca", Instant.now());
        IssuedCertificate client = ca.issueClient("u", List.of(), Instant.now());
        String pem = client.privateKeyPem();
        assertThat(pem).startsWith("-----BEGIN EC PRIVATE KEY-----\n").endsWith("-----END EC PRIVATE KEY-----\n");
        // SEC 1 is the inside of PKCS#8: wrapping it must give back the same key
        byte[] sec1 = Pem.decode(Pem.EC_PRIVATE_KEY, pem);
        byte[] pkcs8 = Der.sequence(
                Der.integer(java.math.BigInteger.ZERO),
                Der.sequence(Der.oid("1.2.840.10045.2.1"), Der.oid("1.2.840.10045.3.1.7")),
                Der.octetString(sec1));
        var read = (java.security.interfaces.ECPrivateKey) java.security.KeyFactory.getInstance("EC")
                .generatePrivate(new java.security.spec.PKCS8EncodedKeySpec(pkcs8));
        assertThat(read.getS()).isEqualTo(((java.security.interfaces.ECPrivateKey) client.privateKey()).getS());
        assertThat(read.getParams().toString()).contains("secp256r1");
    }

    @Test
    void aCaMadeWithOpensslCanBeBroughtIn() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/openssl")), "no openssl");
        Path caDir = Files.createDirectories(dir.resolve("openssl"));
        run(
                "openssl",
                "ecparam",
                "-name",
                "prime256v1",
                "-genkey",
                "-noout",
                "-out",
                caDir.resolve("ca.key").toString());
        run(
                "openssl",
                "req",
                "-x509",
                "-new",
                "-key",
                caDir.resolve("ca.key").toString(),
                "-subj",
                "/CN=corp-ca",
                "-days",
                "30",
                "-addext",
                "basicConstraints=critical,CA:TRUE",
                "-addext",
                "keyUsage=critical,keyCertSign",
                "-out",
                caDir.resolve("ca.crt").toString());
        assertThat(Files.readString(caDir.resolve("ca.key"))).startsWith("-----BEGIN EC PRIVATE KEY-----");
        CertificateAuthority ca = CertificateAuthority.load(caDir);
        assertThat(ca.certificate().getSubjectX500Principal().getName()).isEqualTo("CN=corp-ca");
        validate(ca, ca.issueClient("u", List.of("g"), Instant.now()).certificate());
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue())
                .as(new String(p.getInputStream().readAllBytes()))
                .isZero();
    }

    @Test
    void aBrokenCaDirectoryIsNamed() throws Exception {
        Path caDir = Files.createDirectories(dir.resolve("ca"));
        assertThatThrownBy(() -> CertificateAuthority.load(caDir)).hasMessageContaining("ca.crt is missing");
        Files.writeString(caDir.resolve("ca.key"), "junk");
        assertThatThrownBy(() -> CertificateAuthority.loadOrCreate(caDir, NOW))
                .hasMessageContaining("has ca.key but no ca.crt");
        Files.writeString(
                caDir.resolve("ca.crt"), CertificateAuthority.generate("x", NOW).certificatePem());
        assertThatThrownBy(() -> CertificateAuthority.load(caDir))
                .hasMessageContaining("ca.key holds no PEM PRIVATE KEY");
        IssuedCertificate leaf = CertificateAuthority.generate("x", NOW).issueClient("u", List.of(), NOW);
        Files.writeString(caDir.resolve("ca.crt"), leaf.certificatePem());
        Files.writeString(
                caDir.resolve("ca.key"),
                Pem.encode(Pem.PRIVATE_KEY, leaf.privateKey().getEncoded()));
        assertThatThrownBy(() -> CertificateAuthority.load(caDir)).hasMessageContaining("is not a CA certificate");
    }

    private static byte[] keyId(X509Certificate c, String oid) {
        byte[] ext = c.getExtensionValue(oid); // OCTET STRING { extnValue }
        byte[] value = java.util.Arrays.copyOfRange(ext, 2, ext.length);
        // SKI: OCTET STRING { id }; AKI: SEQUENCE { [0] id }
        return java.util.Arrays.copyOfRange(value, oid.equals("2.5.29.14") ? 2 : 4, value.length);
    }

    private static void validate(CertificateAuthority ca, X509Certificate leaf) throws Exception {
        PKIXParameters params = new PKIXParameters(Set.of(new TrustAnchor(ca.certificate(), null)));
        params.setRevocationEnabled(false);
        params.setDate(Date.from(leaf.getNotBefore().toInstant().plusSeconds(7200)));
        CertPathValidator.getInstance("PKIX")
                .validate(CertificateFactory.getInstance("X.509").generateCertPath(List.of(leaf)), params);
    }
}
