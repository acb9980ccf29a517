package io.kubeloop.client.config;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Reads PEM blocks ({@code -----BEGIN TYPE----- base64 -----END TYPE-----}); text outside blocks is ignored,
 * as openssl and Go do. Failures are {@link IllegalArgumentException}s that never quote the content.
 */
final class Pem {

    /** One block: its type (e.g. {@code CERTIFICATE}), whether it carries RFC 1421 headers, and its bytes. */
    record Block(String type, boolean hasHeaders, byte[] der) {}

    private Pem() {}

    static List<Block> read(byte[] pem) {
        String text = new String(pem, StandardCharsets.US_ASCII).replace("\r\n", "\n");
        List<Block> blocks = new ArrayList<>();
        int from = 0;
        while (true) {
            int begin = text.indexOf("-----BEGIN ", from);
            if (begin < 0) {
                return blocks;
            }
            int typeEnd = text.indexOf("-----", begin + 11);
            if (typeEnd < 0) {
                throw new IllegalArgumentException("a PEM BEGIN line is not closed");
            }
            String type = text.substring(begin + 11, typeEnd);
            String endLine = "-----END " + type + "-----";
            int end = text.indexOf(endLine, typeEnd + 5);
            if (end < 0) {
                throw new IllegalArgumentException("the PEM block " + type + " has no END line");
            }
            String body = text.substring(typeEnd + 5, end);
            boolean headers = body.contains(":");
            if (headers) { // e.g. Proc-Type: 4,ENCRYPTED — headers end at the first blank line
                int blank = body.indexOf("\n\n");
                body = blank < 0 ? "" : body.substring(blank);
            }
            try {
                blocks.add(new Block(type, headers, Base64.getDecoder().decode(body.replaceAll("\\s", ""))));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("the PEM block " + type + " is not valid base64");
            }
            from = end + endLine.length();
        }
    }
}
