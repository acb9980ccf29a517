package io.kubeloop.client.config;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * A small reader of ASN.1 DER, enough for private keys (PKCS#1, SEC 1, the PKCS#8 envelope). Definite lengths
 * only, as DER requires. Every failure is an {@link IllegalArgumentException} without content bytes, which the
 * caller turns into a {@link ConfigException} naming the file or field.
 */
final class Der {

    static final int INTEGER = 0x02;
    static final int BIT_STRING = 0x03;
    static final int OCTET_STRING = 0x04;
    static final int OID = 0x06;
    static final int SEQUENCE = 0x30;

    /** One element: its tag and the bytes of its value. */
    record Element(int tag, byte[] value) {

        List<Element> children() {
            if ((tag & 0x20) == 0) {
                throw new IllegalArgumentException("expected a constructed element, found tag " + tag);
            }
            return Der.readAll(value);
        }

        Element expect(int expectedTag) {
            if (tag != expectedTag) {
                throw new IllegalArgumentException(
                        "expected tag 0x" + Integer.toHexString(expectedTag) + ", found 0x" + Integer.toHexString(tag));
            }
            return this;
        }

        BigInteger integer() {
            expect(INTEGER);
            if (value.length == 0) {
                throw new IllegalArgumentException("an empty INTEGER");
            }
            return new BigInteger(value);
        }

        String oid() {
            expect(OID);
            if (value.length == 0) {
                throw new IllegalArgumentException("an empty OBJECT IDENTIFIER");
            }
            StringBuilder out = new StringBuilder();
            int first = value[0] & 0xFF;
            out.append(Math.min(first / 40, 2)).append('.').append(first - 40 * Math.min(first / 40, 2));
            long arc = 0;
            for (int i = 1; i < value.length; i++) {
                arc = (arc << 7) | (value[i] & 0x7F);
                if ((value[i] & 0x80) == 0) {
                    out.append('.').append(arc);
                    arc = 0;
                } else if (arc > (Long.MAX_VALUE >> 7)) {
                    throw new IllegalArgumentException("an OBJECT IDENTIFIER arc is too large");
                }
            }
            if ((value[value.length - 1] & 0x80) != 0) {
                throw new IllegalArgumentException("a truncated OBJECT IDENTIFIER");
            }
            return out.toString();
        }
    }

    private Der() {}

    /** The single element that makes up {@code der}; trailing bytes are an error. */
    static Element read(byte[] der) {
        List<Element> all = readAll(der);
        if (all.size() != 1) {
            throw new IllegalArgumentException("expected one DER element, found " + all.size());
        }
        return all.get(0);
    }

    static List<Element> readAll(byte[] der) {
        List<Element> out = new ArrayList<>();
        int pos = 0;
        while (pos < der.length) {
            int tag = der[pos++] & 0xFF;
            if ((tag & 0x1F) == 0x1F) {
                throw new IllegalArgumentException("multi-byte DER tags are not supported");
            }
            if (pos >= der.length) {
                throw new IllegalArgumentException("a truncated DER length");
            }
            int len = der[pos++] & 0xFF;
            if (len == 0x80) {
                throw new IllegalArgumentException("an indefinite length, which DER does not allow");
            }
            if (len > 0x80) {
                int n = len & 0x7F;
                if (n > 4 || pos + n > der.length) {
                    throw new IllegalArgumentException("a DER length that is too long or truncated");
                }
                len = 0;
                for (int i = 0; i < n; i++) {
                    len = (len << 8) | (der[pos++] & 0xFF);
                }
                if (len < 0) {
                    throw new IllegalArgumentException("a negative DER length");
                }
            }
            if (len > der.length - pos) {
                throw new IllegalArgumentException("a DER element longer than its data");
            }
            byte[] value = new byte[len];
            System.arraycopy(der, pos, value, 0, len);
            pos += len;
            out.add(new Element(tag, value));
        }
        return out;
    }
}
