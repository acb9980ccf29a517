package io.kubeloop.bench.informer;

/** kubeloop's SharedIndexInformer, in the variants the benchmark compares (filled in once the informer lands). */
final class KubeloopInformer {

    private KubeloopInformer() {
    }

    static InformerUnderTest variant(String runner) {
        throw new IllegalArgumentException("unknown runner " + runner
                + ": baseline, fabric8, client-java (kubeloop's informer is not on this branch yet)");
    }
}
