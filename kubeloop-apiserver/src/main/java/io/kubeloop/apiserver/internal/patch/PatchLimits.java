package io.kubeloop.apiserver.internal.patch;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Map;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.databind.JsonNode;

/**
 * The bounds on what a patch may produce, so that no request can make the server build an object larger than
 * a client could have sent (CVE-2019-1002100: a JSON patch of one {@code add} and 40 {@code copy} operations
 * doubling the same map grows to gigabytes).
 *
 * <ul>
 *   <li>{@link #MAX_COPY_BYTES}: the bytes all {@code copy} operations of one JSON patch may add together,
 *       kube-apiserver's {@code JSONPatchMaxCopyBytes} (3 MiB); beyond it the patch is refused with 422 and
 *       the words of kube's JSON patch library. With it, and the request body limit on the patch itself, a JSON
 *       patch never grows its document by more than 6 MiB while it is applied.</li>
 *   <li>{@link #MAX_OBJECT_BYTES}: the size, as compact JSON, of the object any patch type produces: the
 *       request body limit (3 MiB, kube-apiserver's {@code --max-request-bytes} default), so a patch can store
 *       nothing an update could not. Beyond it: 413 {@code Request entity too large: limit is 3145728}, kube's
 *       answer to an oversized body (kube itself finds an oversized patch result when etcd refuses it at
 *       ~1.5 MiB; the embedded server has no etcd and keeps the one request limit).</li>
 *   <li>{@link #MAX_DEPTH}: the nesting depth of that object: Jackson's default read limit, so that every
 *       stored object can be read back by a client using Jackson's defaults (and by this server).</li>
 * </ul>
 *
 * <p>Sizes are measured on the tree, without serializing it, and the walk is iterative: a tree of any depth
 * is measured without recursion.
 */
public final class PatchLimits {

    /** kube-apiserver's {@code JSONPatchMaxCopyBytes} default. */
    public static final long MAX_COPY_BYTES = 3L * 1024 * 1024;

    /** kube-apiserver's request body limit, which also bounds the object a patch produces. */
    public static final int MAX_OBJECT_BYTES = 3 * 1024 * 1024;

    /** Jackson's default maximum nesting depth of a document it reads. */
    public static final int MAX_DEPTH = StreamReadConstraints.DEFAULT_MAX_DEPTH;

    private PatchLimits() {}

    /**
     * Checks the object a patch produced.
     *
     * @throws PatchException 413 if its compact JSON is over {@link #MAX_OBJECT_BYTES}, 422 if it nests deeper
     *     than {@link #MAX_DEPTH}
     */
    public static void checkResult(JsonNode result) {
        long size = compactJsonLength(result, MAX_OBJECT_BYTES, MAX_DEPTH);
        if (size == DEEPER) {
            throw PatchException.invalid("the patched object nests deeper than " + MAX_DEPTH + " levels");
        }
        if (size > MAX_OBJECT_BYTES) {
            throw PatchException.tooLarge("limit is " + MAX_OBJECT_BYTES);
        }
    }

    /** What {@link #compactJsonLength} returns for a tree nested deeper than its depth limit. */
    static final long DEEPER = -1;

    /**
     * The length in bytes of {@code node} written as compact UTF-8 JSON (as Jackson writes it), or, once the
     * count passes {@code stopAbove}, some number above it; {@link #DEEPER} if the tree nests deeper than
     * {@code maxDepth} containers.
     */
    static long compactJsonLength(JsonNode node, long stopAbove, int maxDepth) {
        long total = 0;
        ArrayDeque<Iterator<?>> open = new ArrayDeque<>();
        JsonNode next = node;
        while (true) {
            if (next != null) {
                if (next.isObject() || next.isArray()) {
                    if (open.size() >= maxDepth) {
                        return DEEPER;
                    }
                    total += 2 + Math.max(0, next.size() - 1); // brackets and commas
                    open.push(
                            next.isObject()
                                    ? next.properties().iterator()
                                    : next.values().iterator());
                } else {
                    total += scalarLength(next);
                }
                if (total > stopAbove) {
                    return total;
                }
            }
            Iterator<?> top = open.peek();
            if (top == null) {
                return total;
            }
            if (!top.hasNext()) {
                open.pop();
                next = null;
                continue;
            }
            Object item = top.next();
            if (item instanceof Map.Entry<?, ?> member) {
                total += stringLength((String) member.getKey()) + 1; // "key":
                next = (JsonNode) member.getValue();
            } else {
                next = (JsonNode) item;
            }
        }
    }

    private static long scalarLength(JsonNode n) {
        if (n.isString()) {
            return stringLength(n.stringValue());
        }
        if (n.isNull()) {
            return 4;
        }
        if (n.isBoolean()) {
            return n.booleanValue() ? 4 : 5;
        }
        if (n.isBinary()) {
            return 2 + (n.binaryValue().length + 2) / 3 * 4L; // base64
        }
        return n.toString().length(); // numbers (ASCII)
    }

    /** A JSON string literal's UTF-8 length, quotes and escapes included. */
    static long stringLength(String s) {
        long len = 2;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                len += 2;
            } else if (c < 0x20) {
                len += c == '\n' || c == '\t' || c == '\r' || c == '\b' || c == '\f' ? 2 : 6;
            } else if (c < 0x80) {
                len += 1;
            } else if (c < 0x800) {
                len += 2;
            } else if (Character.isHighSurrogate(c)
                    && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                len += 4; // a pair is one 4-byte code point
                i++;
            } else if (Character.isSurrogate(c)) {
                len += 6; // a lone surrogate is written escaped, \uD800
            } else {
                len += 3;
            }
        }
        return len;
    }
}
