/** The Reflector: list, then watch from the list's resourceVersion; relist and back off on failure. */
package io.kubeloop.informer.reflector;
