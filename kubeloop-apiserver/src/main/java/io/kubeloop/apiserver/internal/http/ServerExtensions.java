package io.kubeloop.apiserver.internal.http;

import io.kubeloop.apiserver.fault.FaultInjector;
import io.kubeloop.apiserver.internal.crd.CustomResources;
import io.kubeloop.apiserver.internal.crd.ScaleSubresource;
import io.kubeloop.apiserver.internal.registry.WriteOptions;
import io.kubeloop.apiserver.internal.storage.Preconditions;
import io.kubeloop.model.ResourceType;
import tools.jackson.databind.node.ObjectNode;

/**
 * The parts of the server installed after it is built, shared by the endpoints: the custom resources (null: none
 * are served) and the fault injector (null: none). Each is set once, before the server starts, by {@link
 * ApiHttpHandler}; the methods here answer as if the part were absent until then.
 */
final class ServerExtensions {

    private volatile CustomResources crds;
    private volatile FaultInjector faults;

    void customResources(CustomResources crds) {
        this.crds = crds;
    }

    void faults(FaultInjector faults) {
        this.faults = faults;
    }

    /** The custom resources, or null when none are served. */
    CustomResources crds() {
        return crds;
    }

    /** The fault injector, or null. */
    FaultInjector faults() {
        return faults;
    }

    boolean isCustom(ResourceType type) {
        CustomResources c = crds;
        return c != null && c.isCustom(type);
    }

    /** A custom resource write checked and completed by its definition (other writes pass unchanged). */
    ObjectNode admit(ResourceType type, ObjectNode current, ObjectNode next, String subresource, WriteOptions options) {
        CustomResources c = crds;
        return c == null
                ? next
                : c.admit(type, current, next, subresource, options.fieldValidation(), options.warnings());
    }

    /** Tells the custom resources about a stored write (a CRD write changes what is served). */
    ObjectNode written(ResourceType type, ObjectNode stored) {
        CustomResources c = crds;
        if (c != null) {
            c.written(type, stored);
        }
        return stored;
    }

    /** Where {@code type} keeps its scale: a custom resource's declared paths, or null for the built-ins'. */
    ScaleSubresource scalePaths(ResourceType type) {
        CustomResources c = crds;
        return c == null ? null : c.scale(type);
    }

    /** The additional printer columns of a custom resource, or null. */
    java.util.List<io.kubeloop.apiserver.internal.table.PrinterColumn> printerColumns(ResourceType type) {
        CustomResources c = crds;
        return c == null ? null : c.printerColumns(type);
    }

    /**
     * Runs the custom resources' deletion hook before {@code name} of {@code type} is deleted (it refuses, for
     * example, to delete a definition whose preconditions do not hold); nothing when none are served.
     */
    void deleting(ResourceType type, String name, Preconditions preconditions) {
        CustomResources c = crds;
        if (c != null) {
            c.deleting(type, name, preconditions);
        }
    }
}
