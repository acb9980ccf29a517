package io.kubeloop.apiserver.internal.registry;

import io.kubeloop.model.Statuses;

/**
 * The {@code []byte} fields of Secret {@code data} and ConfigMap {@code binaryData} as kube's JSON decoder reads
 * them: standard base64 with padding, {@code \r} and {@code \n} ignored. A value that is not is a 400, as kube
 * answers it ({@code Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 4}).
 */
final class Base64Data {

    private Base64Data() {}

    /**
     * The number of bytes {@code value} decodes to.
     *
     * @throws AdmissionException 400 when it is not base64
     */
    static long decodedLength(String kind, String value) {
        int symbols = 0;
        int padding = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\r' || c == '\n') {
                continue;
            }
            if (c == '=') {
                padding++;
                if (padding > 2) {
                    throw illegal(kind, i);
                }
                continue;
            }
            if (padding > 0 || !isAlphabet(c)) {
                throw illegal(kind, i);
            }
            symbols++;
        }
        if ((symbols + padding) % 4 != 0 || (padding > 0 && (symbols + padding) / 4 * 4 - symbols != padding)) {
            throw illegal(kind, (symbols + padding) / 4 * 4);
        }
        return symbols * 3L / 4;
    }

    /** {@code value} without the line breaks kube's decoder skips (kube stores the decoded bytes). */
    static String canonical(String value) {
        return value.indexOf('\n') < 0 && value.indexOf('\r') < 0
                ? value
                : value.replace("\r", "").replace("\n", "");
    }

    private static boolean isAlphabet(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
    }

    private static AdmissionException illegal(String kind, int offset) {
        return new AdmissionException(Statuses.badRequest(kind + " in version \"v1\" cannot be handled as a " + kind
                + ": illegal base64 data at input byte " + offset));
    }
}
