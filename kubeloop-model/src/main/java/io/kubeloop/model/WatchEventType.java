package io.kubeloop.model;

/** The five event types of a Kubernetes watch stream; any other type is a decode error. */
public enum WatchEventType {
    ADDED,
    MODIFIED,
    DELETED,
    BOOKMARK,
    ERROR
}
