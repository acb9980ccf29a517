package io.kubeloop.apiserver.internal.registry;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;

/**
 * The warnings of one request, handed to {@code sink} as the values of {@code Warning: 299 - "<text>"} response
 * headers, as kube-apiserver sends them, the moment they are added (a write's warnings are known before its
 * answer's headers are sent). Invariant: at most {@link #LIMIT} reach the sink, then one saying that more were
 * dropped, so no request can make the response headers grow without bound.
 */
public final class Warnings {

    /** Warnings sent per request. */
    public static final int LIMIT = 50;

    private final Consumer<String> sink;
    private final List<String> texts = new ArrayList<>();
    private int count;

    /** Warnings that go to {@code sink} as header values. */
    public Warnings(Consumer<String> sink) {
        this.sink = sink;
    }

    /** Warnings kept only in {@link #texts()} (for callers that have no response, and for tests). */
    public Warnings() {
        this(value -> {});
    }

    public synchronized void add(String text) {
        count++;
        if (count <= LIMIT) {
            texts.add(text);
            sink.accept(headerValue(text));
        } else if (count == LIMIT + 1) {
            sink.accept(headerValue("further warnings were dropped"));
        }
    }

    /** The texts sent so far (at most {@link #LIMIT}), in order. */
    public synchronized List<String> texts() {
        return Collections.unmodifiableList(new ArrayList<>(texts));
    }

    /** {@code 299 - "text"}, with quotes and backslashes in the text escaped. */
    static String headerValue(String text) {
        return "299 - \"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
