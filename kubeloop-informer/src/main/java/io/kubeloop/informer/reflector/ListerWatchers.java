package io.kubeloop.informer.reflector;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubeloop.client.codec.UndecodableObjects;
import io.kubeloop.client.resource.ListOptions;
import io.kubeloop.client.resource.ListPage;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.client.resource.WatchOptions;
import io.kubeloop.client.watch.Watch;
import io.kubeloop.client.watch.WatchEvent;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * {@link ListerWatcher}s over kubeloop-client: client-go's {@code NewFilteredListWatchFromClient}. They list and
 * watch with {@code withUndecodableObjects(SKIP)}, whatever the client's own setting: an object that does not
 * decode reaches the {@link Reflector} as a report, and the reflector's own
 * {@link Reflector.Builder#undecodableObjects policy} decides.
 *
 * <pre>{@code
 * ResourceClient<Pod> pods = client.resources(Pod.class).inNamespace("default");
 * ListerWatcher<Pod> web = ListerWatchers.forClient(pods, o -> o.toBuilder().labelSelector("app=web").build());
 * }</pre>
 */
public final class ListerWatchers {

    private ListerWatchers() {}

    /** Lists and watches everything {@code client} sees (its namespace, or all). */
    public static <T extends HasMetadata> ListerWatcher<T> forClient(ResourceClient<T> client) {
        return forClient(client, UnaryOperator.identity());
    }

    /**
     * Lists and watches what {@code client} sees, narrowed by {@code tweak} (client-go's
     * {@code tweakListOptions}): the tweak is applied to every list's options, and the label and field selectors
     * it sets are applied to every watch as well, so that list and watch always see the same objects.
     */
    public static <T extends HasMetadata> ListerWatcher<T> forClient(
            ResourceClient<T> client, UnaryOperator<ListOptions> tweak) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(tweak, "tweak");
        return new ClientListerWatcher<>(client.withUndecodableObjects(UndecodableObjects.SKIP), tweak);
    }

    private record ClientListerWatcher<T extends HasMetadata>(
            ResourceClient<T> client, UnaryOperator<ListOptions> tweak) implements ListerWatcher<T> {

        @Override
        public ListPage<T> list(ListOptions options) {
            ListOptions tweaked = tweaked(options);
            // "" and null both mean "the newest"; leave the parameter out rather than send it empty.
            if ("".equals(tweaked.resourceVersion())) {
                tweaked = tweaked.toBuilder().resourceVersion(null).build();
            }
            return client.list(tweaked);
        }

        @Override
        public WatchStream<T> watch(WatchOptions options) {
            ListOptions selectors = tweaked(ListOptions.builder()
                    .labelSelector(options.labelSelector())
                    .fieldSelector(options.fieldSelector())
                    .build());
            WatchOptions.Builder b = options.toBuilder()
                    .labelSelector(selectors.labelSelector())
                    .fieldSelector(selectors.fieldSelector());
            if ("".equals(options.resourceVersion())) {
                b.resourceVersion(null);
            }
            return new ClientWatchStream<>(client.watch(b.build()));
        }

        private ListOptions tweaked(ListOptions options) {
            ListOptions tweaked = tweak.apply(options);
            if (tweaked == null) {
                throw new IllegalStateException("the list-options tweak returned null for " + options);
            }
            return tweaked;
        }

        @Override
        public String toString() {
            return client.type().plural()
                    + client.namespace().map(ns -> " in " + ns).orElse("");
        }
    }

    private record ClientWatchStream<T>(Watch<T> watch) implements WatchStream<T> {
        @Override
        public WatchEvent<T> next() throws InterruptedException {
            return watch.next();
        }

        @Override
        public void close() {
            watch.close();
        }
    }
}
