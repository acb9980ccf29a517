package io.kubeloop.client.codec;

/**
 * What a list or watch does with an object that does not decode to its Java type ({@link UndecodableObject}).
 *
 * <ul>
 *   <li>{@link #FAIL}: the whole list, or the watch, fails with an error naming the object — what client-go and
 *       the other Java clients do. A {@code ResourceClient}'s default: a list is complete or an error.</li>
 *   <li>{@link #SKIP}: the object is left out and reported beside the others: in
 *       {@code ListPage.undecodable()}, or as a {@code WatchEvent.Undecodable} in its place on a watch; every other
 *       object keeps flowing. An informer's default (it logs, counts and shows what it skipped).</li>
 * </ul>
 *
 * <p>Either way, decoding is item by item on the one streaming parse: a good object costs what it did before, and
 * only an object that fails is read again, for its metadata.
 */
public enum UndecodableObjects {
    /** Fail the whole list or watch (the error names the object). */
    FAIL,
    /** Leave the object out, report it, and carry on with the others. */
    SKIP
}
