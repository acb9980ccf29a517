package io.kubeloop.client.internal;

/**
 * A parser input that can keep the bytes of one value (a list item, a watch event's object) while the parser reads
 * it, so that the value can be read a second time when, and only when, binding it failed. The codec's input of every
 * parser a {@code Decoding} makes implements it; {@link ItemDecoder} uses it. Internal.
 */
public interface ItemInput {

    /**
     * Starts keeping the bytes from stream offset {@code from}, if that byte is still kept and is {@code expected};
     * false (nothing kept) otherwise. Replaces an earlier mark.
     */
    boolean markItem(long from, byte expected);

    /** Stops keeping the marked bytes. */
    void unmarkItem();

    /**
     * A copy of the bytes from the mark to stream offset {@code to} (exclusive), if they are kept and the last one is
     * {@code last}; else null.
     */
    byte[] markedItem(long to, byte last);
}
