package io.kubeloop.apiserver.internal.registry;

/**
 * What a write request says about how to admit it: its {@code fieldValidation}, where its warnings go, and
 * whether it is a dry run ({@code dryRun=All}: everything is checked, nothing is stored).
 */
public record WriteOptions(FieldValidation fieldValidation, Warnings warnings, boolean dryRun) {}
