package io.kubeloop.apiserver.internal.tls;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/**
 * The few ASN.1 DER encodings an X.509 v3 certificate needs. Every method returns one complete
 * tag-length-value; composites take already-encoded children, so a certificate is built bottom-up.
 */
final class Der {

    private static final DateTimeFormatter UTC_TIME =
            DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter GENERALIZED_TIME =
            DateTimeFormatter.ofPattern("yyyyMMddHHmmss'Z'").withZone(ZoneOffset.UTC);
    /** RFC 5280 §4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050. */
    private static final Instant GENERALIZED_FROM = Instant.parse("2050-01-01T00:00:00Z");

    private Der() {}

    static byte[] tlv(int tag, byte[] content) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 6);
        out.write(tag);
        int n = content.length;
        if (n < 0x80) {
            out.write(n);
        } else {
            int bytes = (32 - Integer.numberOfLeadingZeros(n) + 7) / 8;
            out.write(0x80 | bytes);
            for (int i = bytes - 1; i >= 0; i--) {
                out.write(n >>> (8 * i));
            }
        }
        out.writeBytes(content);
        return out.toByteArray();
    }

    static byte[] sequence(byte[]... children) {
        return tlv(0x30, concat(children));
    }

    static byte[] set(byte[]... children) {
        return tlv(0x31, concat(children));
    }

    static byte[] integer(BigInteger value) {
        return tlv(0x02, value.toByteArray()); // two's complement, minimal: what DER asks for
    }

    static byte[] bool(boolean value) {
        return tlv(0x01, new byte[] {(byte) (value ? 0xFF : 0x00)});
    }

    static byte[] octetString(byte[] value) {
        return tlv(0x04, value);
    }

    /** A BIT STRING whose last {@code unusedBits} bits are padding. */
    static byte[] bitString(byte[] value, int unusedBits) {
        byte[] content = new byte[value.length + 1];
        content[0] = (byte) unusedBits;
        System.arraycopy(value, 0, content, 1, value.length);
        return tlv(0x03, content);
    }

    static byte[] utf8String(String value) {
        return tlv(0x0C, value.getBytes(StandardCharsets.UTF_8));
    }

    /** UTCTime or GeneralizedTime, to the second, as RFC 5280 requires for validity dates. */
    static byte[] time(Instant instant) {
        Instant t = instant.truncatedTo(ChronoUnit.SECONDS);
        return t.isBefore(GENERALIZED_FROM)
                ? tlv(0x17, UTC_TIME.format(t).getBytes(StandardCharsets.US_ASCII))
                : tlv(0x18, GENERALIZED_TIME.format(t).getBytes(StandardCharsets.US_ASCII));
    }

    static byte[] oid(String dotted) {
        String[] arcs = dotted.split("\\.");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        base128(out, Long.parseLong(arcs[0]) * 40 + Long.parseLong(arcs[1]));
        for (int i = 2; i < arcs.length; i++) {
            base128(out, Long.parseLong(arcs[i]));
        }
        return tlv(0x06, out.toByteArray());
    }

    /** {@code [n] EXPLICIT}: the child keeps its own tag inside a constructed context tag. */
    static byte[] explicit(int n, byte[] child) {
        return tlv(0xA0 | n, child);
    }

    /** {@code [n] IMPLICIT} for a primitive type: the context tag replaces the type's own. */
    static byte[] implicitPrimitive(int n, byte[] content) {
        return tlv(0x80 | n, content);
    }

    private static void base128(ByteArrayOutputStream out, long value) {
        int groups = Math.max(1, (64 - Long.numberOfLeadingZeros(value) + 6) / 7);
        for (int i = groups - 1; i >= 0; i--) {
            int b = (int) ((value >>> (7 * i)) & 0x7F);
            out.write(i == 0 ? b : b | 0x80);
        }
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
