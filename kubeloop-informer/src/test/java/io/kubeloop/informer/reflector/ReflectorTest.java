package io.kubeloop.informer.reflector;

import static io.kubeloop.informer.reflector.ReflectorHarness.cm;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.kubeloop.client.errors.ExpiredException;
import io.kubeloop.client.errors.TooManyRequestsException;
import io.kubeloop.client.resource.ListOptions;
import io.kubeloop.client.resource.ListPage;
import io.kubeloop.client.resource.WatchOptions;
import io.kubeloop.client.watch.WatchIdleTimeoutException;
import io.kubeloop.informer.testing.ApiErrors;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The reflector's rules (client-go-semantics.md §2), one scenario each, on a FakeSource and a fake clock. */
class ReflectorTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @Test
    void listsAtRvZeroThenWatchesFromTheListsResourceVersion() throws Exception {
        try (ReflectorHarness h = new ReflectorHarness()) {
            h.source.add(cm("a"));
            h.source.add(cm("b"));
            h.start();
            h.awaitWatching();

            assertThat(h.store.calls()).containsExactly(new RecordingStore.Call("replace", List.of("a", "b"), "2"));
            ListOptions list = h.source.listRequests().getFirst();
            assertThat(list.resourceVersion()).isEqualTo("0");
            assertThat(list.limit()).isEqualTo(500);
            WatchOptions watch = h.source.watchRequests().getFirst();
            assertThat(watch.resourceVersion()).isEqualTo("2");
            assertThat(watch.allowWatchBookmarks()).isTrue();
            assertThat(watch.timeoutSeconds()).isBetween(300, 599);
            assertThat(h.reflector.lastSyncResourceVersion()).isEqualTo("2");
            assertThat(h.reflector.hasListed()).isTrue();

            ConfigMap c = h.source.add(cm("c"));
            h.source.modify(c);
            h.source.delete(c);
            await().atMost(WAIT).until(() -> h.store.calls().size() == 4);
            assertThat(h.store.calls().subList(1, 4))
                    .extracting(RecordingStore.Call::op)
                    .containsExactly("add", "update", "delete");
            assertThat(h.reflector.lastSyncResourceVersion()).isEqualTo("5");
        }
    }

    @Test
    void bookmarksAdvanceTheResourceVersionWithoutTouchingTheStore() throws Exception {
        try (ReflectorHarness h = new ReflectorHarness()) {
            h.source.add(cm("a"));
            h.start();
            h.awaitWatching();
            h.source.addDropWatch(cm("b")); // RV 2, not sent
            h.source.bookmark();
            await().atMost(WAIT)
                    .until(() -> h.reflector.lastSyncResourceVersion().equals("2"));
            assertThat(h.store.calls()).hasSize(1);

            // The next watch starts from the bookmark's resourceVersion.
            h.clock.step(Duration.ofSeconds(2)); // not a very short watch
            h.source.closeWatches();
            await().atMost(WAIT).until(() -> h.source.watchRequests().size() == 2);
            assertThat(h.source.watchRequests().get(1).resourceVersion()).isEqualTo("2");
            assertThat(h.source.listCalls()).isEqualTo(1);
        }
    }

    @Test
    void aCleanlyEndedWatchIsReopenedFromTheLastRvWithoutRelistOrBackoff() throws Exception {
        try (ReflectorHarness h = new ReflectorHarness()) {
            h.start();
            h.awaitWatching();
            h.source.add(cm("a"));
            await().atMost(WAIT).until(() -> h.store.count("add") == 1);
            h.source.closeWatches(); // one event was received: not a very short watch
            await().atMost(WAIT).until(() -> h.source.watchRequests().size() == 2 && h.source.openWatches() == 1);
            assertThat(h.source.watchRequests().get(1).resourceVersion()).isEqualTo("1");
            assertThat(h.source.listCalls()).isEqualTo(1);
            assertThat(h.errors).isEmpty();
        }
    }

    @Test
    void aVeryShortWatchIsAnErrorThatBacksOffAndRelists() throws Exception {
        try (ReflectorHarness h = new ReflectorHarness()) {
            h.start();
            h.awaitWatching();
            h.source.closeWatches(); // no time passed, no event
            h.awaitBackingOff();
            assertThat(h.errors).singleElement().isInstanceOf(VeryShortWatchException.class);
            assertThat(h.errors.getFirst()).hasMessageContaining("watch lasted less than a second");
            h.clock.step(Duration.ofMillis(800));
            await().atMost(WAIT).until(() -> h.source.listCalls() == 2);
            h.awaitWatching();
        }
    }

    @Test
    void watchExpiredRelistsAtTheLastSeenResourceVersionAfterABackoff() throws Exception {
        try (ReflectorHarness h = new ReflectorHarness()) {
            h.source.add(cm("a"));
            h.start();
            h.awaitWatching();
            h.source.addDropWatch(cm("missed"));
            h.source.expireWatches();
            h.awaitBackingOff();
            assertThat(h.errors).singleElement().isInstanceOf(ExpiredException.class);
            assertThat(h.source.listCalls()).isEqualTo(1);
            h.clock.step(Duration.ofMillis(800));
            h.awaitWatching();

            ListOptions relist = h.source.listRequests().get(1);
            assertThat(relist.resourceVersion())
                    .as("never back in time: at the last seen RV")
                    .isEqualTo("1");
            assertThat(relist.limit()).as("a specific RV is not paged").isZero();
            assertThat(h.store.last("replace").names()).containsExactly("a", "missed");
        }
    }

    @Test
    void aListThatExpiresIsRetriedAtOnceAtTheNewestResourceVersion() throws Exception {
        try (ReflectorHarness h = new ReflectorHarness()) {
            h.source.add(cm("a"));
            h.start();
            h.awaitWatching();
            h.source.expireWatches();
            h.source.failNextLists(1, () -> ApiErrors.expired("1", "5"));
            h.stepWhenWaiting(Duration.ofMillis(800));
            h.awaitWatching();
            assertThat(h.source.listRequests())
                    .extracting(ListOptions::resourceVersion)
                    .containsExactly("0", "1", "");
            assertThat(h.source.listRequests().get(2).limit())
                    .as("\"\" is paged")
                    .isEqualTo(500);
            assertThat(h.store.count("replace")).isEqualTo(2);
        }
    }

    @Test
    void aTooLargeResourceVersionIsRelistedAtTheNewest() throws Exception {
        try (ReflectorHarness h = new ReflectorHarness()) {
            h.source.add(cm("a"));
            h.source.failNextLists(1, () -> ApiErrors.tooLargeResourceVersion("0", "1"));
            h.start();
            h.awaitWatching();
            assertThat(h.source.listRequests())
                    .extracting(ListOptions::resourceVersion)
                    .containsExactly("0", "");
            assertThat(h.errors).as("recovered within the same list").isEmpty();
        }
    }

    @Test
    void theInitialListIsPagedAndKeepsPagingAfterAPagedResultAtRvZero() throws Exception {
        try (ReflectorHarness h = new ReflectorHarness()) {
            for (int i = 0; i < 1200; i++) {
                h.source.addDropWatch(cm(String.format("cm-%04d", i)));
            }
            h.start();
            h.awaitWatching();
            List<ListOptions> pages = h.source.listRequests();
            assertThat(pages).hasSize(3);
            assertThat(pages.get(0).resourceVersion()).isEqualTo("0");
            assertThat(pages.subList(1, 3)).allSatisfy(p -> {
                assertThat(p.continueToken()).isNotNull();
                assertThat(p.resourceVersion()).as("no RV beside continue").isNull();
                assertThat(p.limit()).isEqualTo(500);
            });
            assertThat(h.store.last("replace").names()).hasSize(1200);
            assertThat(h.store.last("replace").resourceVersion()).isEqualTo("1200");

            h.source.expireWatches();
            h.stepWhenWaiting(Duration.ofMillis(800));
            h.awaitWatching();
            ListOptions relist = h.source.listRequests().get(3);
            assertThat(relist.resourceVersion()).isEqualTo("1200");
            assertThat(relist.limit())
                    .as("the server pages at RV 0: it has no watch cache")
                    .isEqualTo(500);
        }
    }

    @Test
    void anExpiredContinueTokenFallsBackToOneUnpagedList() throws Exception {
        try (ReflectorHarness h = new ReflectorHarness()) {
            for (int i = 0; i < 7; i++) {
                h.source.addDropWatch(cm("cm-" + i));
            }
            AtomicBoolean expiredOnce = new AtomicBoolean();
            ListerWatcher<ConfigMap> expiring = new ListerWatcher<>() {
                @Override
                public ListPage<ConfigMap> list(ListOptions options) {
                    if (options.continueToken() != null && expiredOnce.compareAndSet(false, true)) {
                        h.source.expireContinueTokens();
                    }
                    return h.source.list(options);
                }

                @Override
                public io.kubeloop.informer.reflector.WatchStream<ConfigMap> watch(WatchOptions options) {
                    return h.source.watch(options);
                }
            };
            h.start(expiring, b -> b.pageSize(3));
            h.awaitWatching();
            List<ListOptions> requests = h.source.listRequests();
            assertThat(requests).hasSize(3);
            assertThat(requests.get(2).limit()).isZero();
            assertThat(requests.get(2).continueToken()).isNull();
            assertThat(requests.get(2).resourceVersion()).isEqualTo("0");
            assertThat(h.store.last("replace").names()).hasSize(7);
            assertThat(h.errors).isEmpty();
        }
    }

    @Test
    void aRefusedConnectionRetriesTheWatchAfterABackoffWithoutRelisting() throws Exception {
        try (ReflectorHarness h = new ReflectorHarness()) {
            h.source.failNextWatches(2, ApiErrors::connectionRefused);
            h.start();
            h.awaitBackingOff();
            assertThat(h.reflector.status().consecutiveFailures()).isEqualTo(1);
            assertThat(h.reflector.status().lastError()).contains("Connection refused");
            h.clock.step(Duration.ofMillis(799));
            ReflectorHarness.assertStays(() -> h.source.watchCalls() == 1);
            h.clock.step(Duration.ofMillis(1));
            await().atMost(WAIT).until(() -> h.source.watchCalls() == 2);
            h.awaitBackingOff();
            h.clock.step(Duration.ofMillis(1600)); // the backoff grew
            h.awaitWatching();
            assertThat(h.source.listCalls()).isEqualTo(1);
            assertThat(h.errors).hasSize(2);
            assertThat(h.reflector.status().consecutiveFailures()).isZero();
            assertThat(h.reflector.status().lastError()).isNull();
        }
    }

    @Test
    void tooManyRequestsOnAWatchWaitsAtLeastRetryAfterAndRewatches() throws Exception {
        try (ReflectorHarness h = new ReflectorHarness()) {
            h.source.failNextWatches(1, () -> ApiErrors.tooManyRequests(20));
            h.start();
            h.awaitBackingOff();
            h.clock.step(Duration.ofSeconds(19));
            ReflectorHarness.assertStays(() -> h.source.watchCalls() == 1);
            h.clock.step(Duration.ofSeconds(1));
            h.awaitWatching();
            assertThat(h.source.listCalls()).isEqualTo(1);
            assertThat(h.errors).singleElement().isInstanceOf(TooManyRequestsException.class);
        }
    }

    @Test
    void serviceUnavailableOnAListWaitsAtLeastRetryAfter() throws Exception {
        try (ReflectorHarness h = new ReflectorHarness()) {
            h.source.failNextLists(1, () -> ApiErrors.serviceUnavailable(10));
            h.start();
            h.awaitBackingOff();
            h.clock.step(Duration.ofMillis(9_999));
            ReflectorHarness.assertStays(() -> h.source.listCalls() == 1);
            h.clock.step(Duration.ofMillis(1));
            h.awaitWatching();
            assertThat(h.source.listCalls()).isEqualTo(2);
        }
    }

    @Test
    void listFailuresBackOffExponentiallyUpToTheCap() throws Exception {
        try (ReflectorHarness h = new ReflectorHarness()) {
            h.source.setListError(ApiErrors.internalError("etcd is down"));
            h.start();
            long[] expectedMillis = {800, 1600, 3200, 6400, 12800, 25600, 30000, 30000};
            for (int i = 0; i < expectedMillis.length; i++) {
                int calls = i + 1;
                await().atMost(WAIT).until(() -> h.source.listCalls() == calls);
                h.awaitBackingOff();
                h.clock.step(Duration.ofMillis(expectedMillis[i] - 1));
                ReflectorHarness.assertStays(() -> h.source.listCalls() == calls);
                h.clock.step(Duration.ofMillis(1));
            }
            await().atMost(WAIT).until(() -> h.source.listCalls() == expectedMillis.length + 1);
            assertThat(h.reflector.status().consecutiveFailures()).isGreaterThanOrEqualTo(expectedMillis.length);
            assertThat(h.reflector.isWatching()).isFalse();
            h.source.setListError(null);
        }
    }

    @Test
    void anIdleWatchIsReplacedFromTheLastRvWithoutRelisting() throws Exception {
        try (ReflectorHarness h = new ReflectorHarness()) {
            h.source.add(cm("a"));
            h.start();
            h.awaitWatching();
            h.source.failWatches(ApiErrors.watchIdleTimeout());
            await().atMost(WAIT).until(() -> h.source.watchCalls() == 2 && h.source.openWatches() == 1);
            assertThat(h.source.watchRequests().get(1).resourceVersion()).isEqualTo("1");
            assertThat(h.source.listCalls()).isEqualTo(1);
            assertThat(h.errors).singleElement().isInstanceOf(WatchIdleTimeoutException.class);
        }
    }

    @Test
    void anInternalErrorEventBacksOffAndRelists() throws Exception {
        try (ReflectorHarness h = new ReflectorHarness()) {
            h.start();
            h.awaitWatching();
            h.source.failWatches(ApiErrors.internalError("boom"));
            h.awaitBackingOff();
            h.clock.step(Duration.ofMillis(800));
            await().atMost(WAIT).until(() -> h.source.listCalls() == 2);
            h.awaitWatching();
        }
    }

    @Test
    void streamingListFillsTheStoreFromInitialEventsAndKeepsTheStream() throws Exception {
        try (ReflectorHarness h = new ReflectorHarness()) {
            h.source.add(cm("a"));
            h.source.add(cm("b"));
            h.start(b -> b.streamingList(true));
            h.awaitWatching();
            assertThat(h.store.calls()).containsExactly(new RecordingStore.Call("replace", List.of("a", "b"), "2"));
            WatchOptions first = h.source.watchRequests().getFirst();
            assertThat(first.sendInitialEvents()).isTrue();
            assertThat(first.resourceVersionMatch()).isEqualTo("NotOlderThan");
            assertThat(first.resourceVersion()).isEmpty();
            h.source.add(cm("c"));
            await().atMost(WAIT).until(() -> h.store.count("add") == 1);
            assertThat(h.source.watchCalls()).as("the same stream goes on").isEqualTo(1);
            assertThat(h.source.listCalls()).isZero();
        }
    }

    @Test
    void aStreamingRelistStartsAtTheLastRvAndAtTheNewestAfterA410() throws Exception {
        try (ReflectorHarness h = new ReflectorHarness()) {
            h.source.add(cm("a"));
            h.source.add(cm("b"));
            h.start(b -> b.streamingList(true));
            h.awaitWatching();
            h.source.addDropWatch(cm("missed"));
            h.source.expireWatches();
            h.source.failNextWatches(1, () -> ApiErrors.expired("2", "3"));
            h.stepWhenWaiting(Duration.ofMillis(800));
            await().atMost(WAIT).until(() -> h.store.count("replace") == 2);
            h.awaitWatching();
            assertThat(h.source.watchRequests())
                    .extracting(WatchOptions::resourceVersion)
                    .containsExactly("", "2", "");
            assertThat(h.source.watchRequests())
                    .allSatisfy(w -> assertThat(w.sendInitialEvents()).isTrue());
            assertThat(h.store.last("replace"))
                    .isEqualTo(new RecordingStore.Call("replace", List.of("a", "b", "missed"), "3"));
            assertThat(h.source.listCalls()).isZero();
        }
    }

    @Test
    void streamingListFallsBackToListAndWatchWhenRefused() throws Exception {
        try (ReflectorHarness h = new ReflectorHarness()) {
            h.source.add(cm("a"));
            h.source.refuseStreamingList(true);
            h.start(b -> b.streamingList(true));
            h.awaitWatching();
            assertThat(h.source.listCalls()).isEqualTo(1);
            assertThat(h.source.watchRequests()).hasSize(2);
            assertThat(h.source.watchRequests().get(1).sendInitialEvents()).isNull();
            assertThat(h.store.last("replace").names()).containsExactly("a");
        }
    }

    @Test
    void resyncCallsTheStoreEveryPeriodWhenShouldResyncSaysYes() throws Exception {
        AtomicBoolean should = new AtomicBoolean(true);
        AtomicInteger asked = new AtomicInteger();
        try (ReflectorHarness h = new ReflectorHarness()) {
            h.start(b -> b.resyncPeriod(Duration.ofSeconds(30)).shouldResync(() -> {
                asked.incrementAndGet();
                return should.get();
            }));
            h.awaitWatching();
            h.stepWhenWaiting(Duration.ofSeconds(30));
            await().atMost(WAIT).until(() -> h.store.count("resync") == 1);
            should.set(false);
            h.stepWhenWaiting(Duration.ofSeconds(30));
            await().atMost(WAIT).until(() -> asked.get() == 2);
            should.set(true);
            h.stepWhenWaiting(Duration.ofSeconds(29));
            h.stepWhenWaiting(Duration.ofSeconds(1));
            await().atMost(WAIT).until(() -> h.store.count("resync") == 2);
            assertThat(asked).hasValue(3);
        }
    }

    @Test
    void aFailedResyncEndsTheWatchAndRelists() throws Exception {
        try (ReflectorHarness h = new ReflectorHarness()) {
            h.store.failResyncWith(() -> new IllegalStateException("resync broke"));
            h.start(b -> b.resyncPeriod(Duration.ofSeconds(30)));
            h.awaitWatching();
            h.stepWhenWaiting(Duration.ofSeconds(30));
            await().atMost(WAIT).until(() -> h.errors.size() == 1);
            assertThat(h.errors.getFirst()).hasMessage("resync broke");
            h.store.failResyncWith(null);
            h.awaitBackingOff();
            h.clock.step(Duration.ofMillis(800));
            await().atMost(WAIT).until(() -> h.source.listCalls() == 2);
            h.awaitWatching();
        }
    }

    @Test
    void stopEndsRunWhileListing() throws Exception {
        ReflectorHarness h = new ReflectorHarness();
        h.source.pauseLists();
        h.start();
        await().atMost(WAIT)
                .until(() ->
                        h.source.listCalls() == 1 && h.reflector.status().phase() == ReflectorStatus.Phase.LISTING);
        h.reflector.stop();
        assertThat(h.reflector.awaitTermination(WAIT)).isTrue();
        assertThat(h.reflector.status().phase()).isEqualTo(ReflectorStatus.Phase.STOPPED);
        assertThat(h.store.calls()).isEmpty();
        h.close();
    }

    @Test
    void stopEndsRunWhileWatchingOrBackingOff() throws Exception {
        try (ReflectorHarness watching = new ReflectorHarness()) {
            watching.start(b -> b.resyncPeriod(Duration.ofMinutes(1)));
            watching.awaitWatching();
        } // close() stops and checks that every thread ended and no watch is open
        try (ReflectorHarness backingOff = new ReflectorHarness()) {
            backingOff.source.setListError(ApiErrors.internalError("down"));
            backingOff.start();
            backingOff.awaitBackingOff();
        }
    }

    @Test
    void stopBeforeRunMakesRunReturnAtOnceAndRunTwiceIsRefused() throws Exception {
        ReflectorHarness h = new ReflectorHarness();
        Reflector<ConfigMap> r =
                Reflector.builder(h.source, h.store).clock(h.clock).build();
        assertThat(r.status().phase()).isEqualTo(ReflectorStatus.Phase.NOT_STARTED);
        r.stop();
        r.run();
        assertThat(r.status().phase()).isEqualTo(ReflectorStatus.Phase.STOPPED);
        assertThat(h.source.listCalls()).isZero();
        org.assertj.core.api.Assertions.assertThatThrownBy(r::run)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already been run");
    }

    @Test
    void anInterruptOfTheRunThreadStopsItAndKeepsTheFlag() throws Exception {
        ReflectorHarness h = new ReflectorHarness();
        AtomicBoolean flagKept = new AtomicBoolean();
        Reflector<ConfigMap> r =
                Reflector.builder(h.source, h.store).clock(h.clock).build();
        Thread t = Thread.ofVirtual().start(() -> {
            r.run();
            flagKept.set(Thread.currentThread().isInterrupted());
        });
        await().atMost(WAIT).until(() -> h.source.openWatches() == 1);
        t.interrupt();
        t.join(WAIT);
        assertThat(t.isAlive()).isFalse();
        assertThat(flagKept).isTrue();
        assertThat(h.source.openWatches()).isZero();
    }

    @Test
    void statusFollowsThePhases() throws Exception {
        try (ReflectorHarness h = new ReflectorHarness()) {
            h.source.failNextLists(1, () -> ApiErrors.forbidden());
            h.start();
            h.awaitBackingOff();
            ReflectorStatus backingOff = h.reflector.status();
            assertThat(backingOff.lastError()).startsWith("ForbiddenException").contains("403");
            assertThat(backingOff.consecutiveFailures()).isEqualTo(1);
            assertThat(backingOff.since()).isEqualTo(h.clock.now());
            h.clock.step(Duration.ofMillis(800));
            h.awaitWatching();
            ReflectorStatus watching = h.reflector.status();
            assertThat(watching.phase()).isEqualTo(ReflectorStatus.Phase.WATCHING);
            assertThat(watching.lastError()).isNull();
            assertThat(watching.consecutiveFailures()).isZero();
        }
    }

    @Test
    void objectsDeletedWhileTheWatchWasDownAreGoneAfterTheRelist() throws Exception {
        try (ReflectorHarness h = new ReflectorHarness()) {
            ConfigMap a = h.source.add(cm("a"));
            h.source.add(cm("b"));
            h.start();
            h.awaitWatching();
            h.source.deleteDropWatch(a);
            h.source.addDropWatch(cm("c"));
            h.source.resetWatch(); // the server ends the watch and forgets its history
            await().atMost(WAIT)
                    .until(() -> h.source.watchCalls() >= 2
                            || h.reflector.status().phase() == ReflectorStatus.Phase.BACKING_OFF);
            // The clean end was very short, or the re-watch got 410: either way a backoff, then a relist.
            h.awaitBackingOff();
            h.clock.step(Duration.ofSeconds(2));
            await().atMost(WAIT).until(() -> h.store.versions().equals(RecordingStore.versionsOf(h.source.objects())));
            assertThat(h.store.versions()).containsOnlyKeys("default/b", "default/c");
        }
    }
}
