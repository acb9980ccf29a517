package io.kubeloop.apiserver.internal.tls;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PEM armour (RFC 7468) for certificates ({@code CERTIFICATE}), PKCS#8 keys ({@code PRIVATE KEY}, the CA key
 * file) and SEC 1 EC keys ({@code EC PRIVATE KEY}, in kubeconfigs).
 */
final class Pem {

    static final String CERTIFICATE = "CERTIFICATE";
    static final String PRIVATE_KEY = "PRIVATE KEY";
    static final String EC_PRIVATE_KEY = "EC PRIVATE KEY";

    private Pem() {}

    static String encode(String label, byte[] der) {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der);
        return "-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----\n";
    }

    /**
     * The DER bytes of the first block with {@code label}, or null if there is none. Never echoes the
     * text back: callers report a missing or bad block by file name only.
     */
    static byte[] decode(String label, String pem) {
        Matcher m = Pattern.compile("-----BEGIN " + Pattern.quote(label) + "-----([A-Za-z0-9+/=\\s]*)-----END "
                        + Pattern.quote(label) + "-----")
                .matcher(pem);
        if (!m.find()) {
            return null;
        }
        try {
            return Base64.getMimeDecoder().decode(m.group(1));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
