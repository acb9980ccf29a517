package io.kubeloop.client.config;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;

/** A client certificate chain and its private key, checked to belong together. Never printed. */
record ClientKey(List<X509Certificate> chain, PrivateKey key) {

    ClientKey {
        chain = List.copyOf(chain);
    }

    /** Parses and checks a certificate and key given as PEM; {@code certWhere}/{@code keyWhere} name their source. */
    static ClientKey fromPem(byte[] certPem, String certWhere, byte[] keyPem, String keyWhere) {
        List<X509Certificate> chain = PemMaterial.certificates(certPem, certWhere);
        PrivateKey key = PemMaterial.privateKey(keyPem, keyWhere);
        PemMaterial.checkPair(chain.get(0), key, keyWhere);
        return new ClientKey(chain, key);
    }

    @Override
    public String toString() {
        return "ClientKey[" + chain.get(0).getSubjectX500Principal().getName() + "]";
    }
}
