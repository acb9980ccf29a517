package io.kubeloop.bench.informer;

import io.fabric8.kubernetes.api.model.Pod;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.informer.ResourceEventHandler;
import io.kubeloop.informer.SharedIndexInformer;
import io.kubeloop.informer.Transforms;
import io.kubeloop.informer.reflector.ListerWatchers;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * kubeloop's {@link SharedIndexInformer} for pods in all namespaces, one handler, no resync, default options
 * (reflector pages of 500, updates coalesced in the DeltaFIFO), in the variants the benchmark compares:
 *
 * <ul>
 *   <li>{@code kubeloop}: standard decoding, no transform;</li>
 *   <li>{@code kubeloop-strip}: the ready-made {@code Transforms.stripManagedFields()} transform;</li>
 *   <li>{@code kubeloop-compact}: the client decodes with {@link Decoding#compact()};</li>
 *   <li>{@code kubeloop-compact-strip}: compact decoding and the {@code stripManagedFields()} transform, the
 *       controller Manager's default cache;</li>
 *   <li>{@code kubeloop-lean}: {@code Decoding.compact().withoutManagedFields()}: the strip done while parsing;</li>
 *   <li>{@code kubeloop-exact}, {@code kubeloop-lean-exact}: {@code coalesceUpdates(false)}, every update
 *       delivered as client-go does.</li>
 * </ul>
 */
final class KubeloopInformer implements InformerUnderTest {

    /** Called in {@link #start}: the first use of {@code Decoding} builds its mappers, part of the timed start. */
    private final Supplier<Decoding> decoding;

    private final UnaryOperator<Pod> transform;
    private final boolean coalesce;
    private KubernetesClient client;
    private SharedIndexInformer<Pod> informer;

    private KubeloopInformer(Supplier<Decoding> decoding, UnaryOperator<Pod> transform, boolean coalesce) {
        this.decoding = decoding;
        this.transform = transform;
        this.coalesce = coalesce;
    }

    static InformerUnderTest variant(String runner) {
        return switch (runner) {
            case "kubeloop" -> new KubeloopInformer(() -> Decoding.standard(), null, true);
            case "kubeloop-strip" ->
                new KubeloopInformer(() -> Decoding.standard(), Transforms.stripManagedFields(), true);
            case "kubeloop-compact" -> new KubeloopInformer(() -> Decoding.compact(), null, true);
            case "kubeloop-compact-strip" ->
                new KubeloopInformer(() -> Decoding.compact(), Transforms.stripManagedFields(), true);
            case "kubeloop-lean" ->
                new KubeloopInformer(() -> Decoding.compact().withoutManagedFields(), null, true);
            case "kubeloop-exact" -> new KubeloopInformer(() -> Decoding.standard(), null, false);
            case "kubeloop-lean-exact" ->
                new KubeloopInformer(() -> Decoding.compact().withoutManagedFields(), null, false);
            default ->
                throw new IllegalArgumentException(
                        "unknown runner " + runner + ": baseline[-compact][-nomf], "
                                + "fabric8, client-java, kubeloop[-strip|-compact|-compact-strip|-lean|-exact|-lean-exact], kubeloop-manager");
        };
    }

    @Override
    public void start(String url, Deliveries deliveries) {
        client = KubernetesClient.create(ClientConfig.builder().server(url).build());
        ResourceClient<Pod> pods = client.resources(Pod.class).inAnyNamespace().withDecoding(decoding.get());
        SharedIndexInformer.Builder<Pod> builder = SharedIndexInformer.builder(
                        ListerWatchers.forClient(pods), Pod.class)
                .name("bench-pods")
                .coalesceUpdates(coalesce);
        if (transform != null) {
            builder.transform(transform);
        }
        informer = builder.build();
        informer.addEventHandler(new ResourceEventHandler<Pod>() {
            @Override
            public void onAdd(Pod pod, boolean isInInitialList) {
                deliveries.added();
            }

            @Override
            public void onUpdate(Pod oldPod, Pod pod) {
                deliveries.updated(pod.getMetadata().getResourceVersion(), BaselineInformer.seq(pod));
            }
        });
        informer.start();
    }

    @Override
    public boolean hasSynced() {
        return informer.hasSynced();
    }

    @Override
    public int cacheSize() {
        return informer.indexer().listKeys().size();
    }

    @Override
    public void close() {
        informer.stop();
        client.close();
    }
}
