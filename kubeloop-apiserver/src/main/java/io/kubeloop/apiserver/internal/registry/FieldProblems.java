package io.kubeloop.apiserver.internal.registry;

import java.util.ArrayList;
import java.util.List;

/**
 * The strict-decoding problems of one request body, in the order they were found: duplicate fields
 * ({@code duplicate field "spec.paused"}, or YAML's {@code line 12: key "paused" already set in map}) found by
 * {@link Bodies}, then unknown fields ({@code unknown field "spec.foo"}) found by {@link Admission}. Under
 * {@code fieldValidation=Warn} each becomes a warning, under {@code Strict} together they are one error, under
 * {@code Ignore} they are dropped. Confined to the request's thread.
 */
public final class FieldProblems {

    /** A problem's text, and for a JSON duplicate its field path (null otherwise). */
    record Problem(String text, String duplicatePath) {}

    private final List<Problem> problems = new ArrayList<>();

    void add(String text, String duplicatePath) {
        problems.add(new Problem(text, duplicatePath));
    }

    /** Takes the problems found so far (each is reported once). */
    List<Problem> drain() {
        List<Problem> taken = new ArrayList<>(problems);
        problems.clear();
        return taken;
    }
}
