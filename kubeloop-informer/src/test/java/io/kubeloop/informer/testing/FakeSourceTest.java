package io.kubeloop.informer.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kubeloop.client.errors.ExpiredException;
import io.kubeloop.client.errors.KubernetesApiException;
import io.kubeloop.client.errors.TooManyRequestsException;
import io.kubeloop.client.resource.ListOptions;
import io.kubeloop.client.resource.ListPage;
import io.kubeloop.client.resource.WatchOptions;
import io.kubeloop.client.watch.WatchEvent;
import io.kubeloop.client.watch.WatchIdleTimeoutException;
import io.kubeloop.informer.reflector.WatchStream;
import io.kubeloop.model.WatchEventType;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FakeSourceTest {

    static ConfigMap cm(String name) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withNamespace("default")
                .withName(name)
                .endMetadata()
                .addToData("k", "v")
                .build();
    }

    static WatchOptions from(String rv) {
        return WatchOptions.builder()
                .resourceVersion(rv)
                .allowWatchBookmarks(true)
                .build();
    }

    @Test
    void listReturnsDeepCopiesAtLastRv() {
        FakeSource<ConfigMap> source = new FakeSource<>();
        ConfigMap original = cm("a");
        source.add(original);
        source.add(cm("b"));
        assertThat(original.getMetadata().getResourceVersion()).isNull();

        ListPage<ConfigMap> page = source.list(ListOptions.none());
        assertThat(page.resourceVersion()).isEqualTo("2");
        assertThat(page.items()).extracting(c -> c.getMetadata().getName()).containsExactly("a", "b");
        page.items().getFirst().getData().put("k", "mutated");
        assertThat(source.objects().getFirst().getData()).containsEntry("k", "v");
        assertThat(source.listCalls()).isEqualTo(1);
    }

    @Test
    void pagingFollowsContinueTokensFromOneSnapshot() {
        FakeSource<ConfigMap> source = new FakeSource<>();
        for (int i = 0; i < 5; i++) {
            source.add(cm("c" + i));
        }
        ListPage<ConfigMap> first = source.list(ListOptions.builder().limit(2).build());
        assertThat(first.items()).hasSize(2);
        assertThat(first.hasMore()).isTrue();
        assertThat(first.remainingItemCount()).isEqualTo(3L);
        source.add(cm("later"));
        List<String> names = new ArrayList<>(
                first.items().stream().map(c -> c.getMetadata().getName()).toList());
        ListPage<ConfigMap> page = first;
        for (int guard = 0; page.hasMore() && guard < 10; guard++) {
            page = source.list(ListOptions.builder()
                    .limit(2)
                    .continueToken(page.continueToken())
                    .build());
            assertThat(page.resourceVersion()).isEqualTo("5");
            page.items().forEach(c -> names.add(c.getMetadata().getName()));
        }
        assertThat(names).containsExactly("c0", "c1", "c2", "c3", "c4");
    }

    @Test
    void expiredContinueTokenFailsWith410() {
        FakeSource<ConfigMap> source = new FakeSource<>();
        for (int i = 0; i < 3; i++) {
            source.add(cm("c" + i));
        }
        ListPage<ConfigMap> first = source.list(ListOptions.builder().limit(1).build());
        source.expireContinueTokens();
        assertThatThrownBy(() -> source.list(ListOptions.builder()
                        .limit(1)
                        .continueToken(first.continueToken())
                        .build()))
                .isInstanceOfSatisfying(ExpiredException.class, e -> assertThat(e.isContinueExpired())
                        .isTrue());
    }

    @Test
    void listAtAFutureRvIsTooLarge() {
        FakeSource<ConfigMap> source = new FakeSource<>();
        source.add(cm("a"));
        assertThatThrownBy(() ->
                        source.list(ListOptions.builder().resourceVersion("9").build()))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(504);
                    assertThat(e.status().getDetails().getCauses().getFirst().getReason())
                            .isEqualTo("ResourceVersionTooLarge");
                });
    }

    @Test
    void watchFromLastRvIsLiveAndDropWatchVariantsAreNotSent() throws Exception {
        FakeSource<ConfigMap> source = new FakeSource<>();
        ConfigMap a = source.add(cm("a"));
        try (WatchStream<ConfigMap> w = source.watch(from("1"))) {
            assertThat(source.openWatches()).isEqualTo(1);
            source.modifyDropWatch(a);
            source.modify(a);
            source.bookmark();
            WatchEvent<ConfigMap> e = w.next();
            assertThat(e.type()).isEqualTo(WatchEventType.MODIFIED);
            assertThat(((WatchEvent.Change<ConfigMap>) e).object().getMetadata().getResourceVersion())
                    .isEqualTo("3");
            assertThat(w.next()).isEqualTo(new WatchEvent.Bookmark<ConfigMap>("3", false));
        }
        assertThat(source.openWatches()).isZero();
    }

    @Test
    void watchFromAnOlderRvReplaysTheLog() throws Exception {
        FakeSource<ConfigMap> source = new FakeSource<>();
        ConfigMap a = source.add(cm("a"));
        source.modify(a);
        source.delete(a);
        try (WatchStream<ConfigMap> w = source.watch(from("1"))) {
            assertThat(w.next().type()).isEqualTo(WatchEventType.MODIFIED);
            assertThat(w.next().type()).isEqualTo(WatchEventType.DELETED);
        }
    }

    @Test
    void watchAfterResetFromAnOldRvIsExpiredAndInTheFutureIsRefused() {
        FakeSource<ConfigMap> source = new FakeSource<>();
        source.add(cm("a"));
        source.add(cm("b"));
        source.resetWatch();
        assertThatThrownBy(() -> source.watch(from("1")))
                .isInstanceOf(ExpiredException.class)
                .hasMessageContaining("too old resource version");
        assertThat(source.watch(from("2"))).isNotNull();
        assertThatThrownBy(() -> source.watch(from("3")))
                .isInstanceOf(KubernetesApiException.class)
                .hasMessageContaining("resource version in the future");
    }

    @Test
    void serverEndsWatchesCleanlyWithAnErrorEventOrAFailure() throws Exception {
        FakeSource<ConfigMap> source = new FakeSource<>();
        WatchStream<ConfigMap> clean = source.watch(from("0"));
        source.add(cm("a"));
        source.closeWatches();
        assertThat(clean.next().type()).isEqualTo(WatchEventType.ADDED);
        assertThat(clean.next()).isNull();

        WatchStream<ConfigMap> expired = source.watch(from("1"));
        source.expireWatches();
        assertThatThrownBy(expired::next).isInstanceOf(ExpiredException.class);

        WatchStream<ConfigMap> idle = source.watch(from("1"));
        source.failWatches(ApiErrors.watchIdleTimeout());
        assertThatThrownBy(idle::next).isInstanceOf(WatchIdleTimeoutException.class);
        assertThat(source.openWatches()).isZero();
    }

    @Test
    void streamingListSendsInitialEventsThenTheEndBookmarkOrIsRefused() throws Exception {
        FakeSource<ConfigMap> source = new FakeSource<>();
        source.add(cm("a"));
        source.add(cm("b"));
        WatchOptions streaming = WatchOptions.builder()
                .sendInitialEvents(true)
                .resourceVersionMatch("NotOlderThan")
                .allowWatchBookmarks(true)
                .build();
        try (WatchStream<ConfigMap> w = source.watch(streaming)) {
            assertThat(w.next().type()).isEqualTo(WatchEventType.ADDED);
            assertThat(w.next().type()).isEqualTo(WatchEventType.ADDED);
            assertThat(w.next()).isEqualTo(new WatchEvent.Bookmark<ConfigMap>("2", true));
        }
        source.refuseStreamingList(true);
        assertThatThrownBy(() -> source.watch(streaming))
                .isInstanceOf(KubernetesApiException.class)
                .hasMessageContaining("sendInitialEvents");
    }

    @Test
    void injectedFailuresHitTheNextCallsOnly() {
        FakeSource<ConfigMap> source = new FakeSource<>();
        source.failNextLists(1, () -> ApiErrors.tooManyRequests(7));
        source.failNextWatches(1, ApiErrors::connectionRefused);
        assertThatThrownBy(() -> source.list(ListOptions.none()))
                .isInstanceOfSatisfying(TooManyRequestsException.class, e -> assertThat(e.retryAfterSeconds())
                        .hasValue(7));
        assertThat(source.list(ListOptions.none()).items()).isEmpty();
        assertThatThrownBy(() -> source.watch(from("0")))
                .isInstanceOf(UncheckedIOException.class)
                .hasCauseInstanceOf(ConnectException.class);
        assertThat(source.watch(from("0"))).isNotNull();
        assertThat(source.watchCalls()).isEqualTo(2);
        assertThat(source.watchRequests()).hasSize(2);
        assertThat(ApiErrors.serviceUnavailable(3).retryAfterSeconds()).hasValue(3);
    }
}
