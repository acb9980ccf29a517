/** The DeltaFIFO between the Reflector and the informer's process loop. */
package io.kubeloop.informer.fifo;
