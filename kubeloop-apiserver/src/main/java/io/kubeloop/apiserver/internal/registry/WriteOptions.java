package io.kubeloop.apiserver.internal.registry;

/**
 * What a write request says about how to admit it: its {@code fieldValidation}, where its warnings go, and
 * whether it is a dry run ({@code dryRun=All}: everything is checked, nothing is stored). {@code fieldProblems}
 * collects what {@link Bodies} found while parsing the body (duplicate fields), reported with the unknown fields
 * by {@link Admission#decoded}.
 */
public record WriteOptions(
        FieldValidation fieldValidation, Warnings warnings, boolean dryRun, FieldProblems fieldProblems) {

    public WriteOptions(FieldValidation fieldValidation, Warnings warnings, boolean dryRun) {
        this(fieldValidation, warnings, dryRun, new FieldProblems());
    }
}
