package io.kubeloop.informer.fifo;

/** Why an object entered the DeltaFIFO (client-go's {@code cache.DeltaType}). */
public enum DeltaType {
    /** A watch ADDED event, or an object first seen in a list. */
    ADDED,
    /** A watch MODIFIED event. */
    UPDATED,
    /** A watch DELETED event, or a tombstone from a relist. */
    DELETED,
    /** An object in a relist (the list replaced the known state). */
    REPLACED,
    /** A periodic resync of an object already known. */
    SYNC
}
