package io.kubeloop.apiserver.internal.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.internal.storage.ListResult;
import io.kubeloop.apiserver.internal.storage.NotFoundException;
import io.kubeloop.apiserver.internal.storage.Preconditions;
import io.kubeloop.apiserver.internal.storage.StorageKey;
import io.kubeloop.apiserver.internal.storage.Store;
import io.kubeloop.apiserver.internal.storage.StoreWatch;
import io.kubeloop.clock.Clock;
import io.kubeloop.model.ResourceRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** The background controller on a store whose writes fail for a while, and after it is closed. */
class ObjectLifecycleTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final StorageKey OWNER = new StorageKey("", "configmaps", "default", "owner");
    private static final StorageKey DEPENDENT = new StorageKey("", "configmaps", "default", "dependent");

    private final FailingDeletes store = new FailingDeletes(Store.builder().build());
    private ObjectLifecycle lifecycle;

    @AfterEach
    void stop() {
        if (lifecycle != null) {
            lifecycle.close();
        }
        store.close();
    }

    private static ObjectNode configMap(String name, String ownerUid) {
        ObjectNode cm = JSON.createObjectNode().put("apiVersion", "v1").put("kind", "ConfigMap");
        ObjectNode meta = cm.putObject("metadata")
                .put("name", name)
                .put("namespace", "default")
                .put("uid", name + "-uid");
        if (ownerUid != null) {
            meta.putArray("ownerReferences")
                    .addObject()
                    .put("apiVersion", "v1")
                    .put("kind", "ConfigMap")
                    .put("name", "owner")
                    .put("uid", ownerUid);
        }
        return cm;
    }

    private boolean exists(StorageKey key) {
        try {
            store.get(key);
            return true;
        } catch (NotFoundException e) {
            return false;
        }
    }

    @Test
    void theCollectorRetriesAfterFailuresAndKeepsWorking() {
        lifecycle = ObjectLifecycle.start(store, Clock.system(), ResourceRegistry::builtIn);
        store.create(OWNER, configMap("owner", null));
        store.create(DEPENDENT, configMap("dependent", "owner-uid"));
        store.failingDeletes.set(3);
        store.delete(OWNER, Preconditions.NONE); // the test's own delete does not count: it bypasses failures
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> !exists(DEPENDENT));
        assertThat(store.failed).hasValue(3);

        StorageKey next = new StorageKey("", "configmaps", "default", "later");
        store.create(next, configMap("later", "gone-uid"));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !exists(next));
    }

    @Test
    void nothingIsCollectedAfterClose() {
        lifecycle = ObjectLifecycle.start(store, Clock.system(), ResourceRegistry::builtIn);
        StorageKey first = new StorageKey("", "configmaps", "default", "first");
        store.create(first, configMap("first", "gone-uid"));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !exists(first));

        lifecycle.close();
        store.create(DEPENDENT, configMap("dependent", "gone-uid"));
        Awaitility.await()
                .during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(5))
                .until(() -> exists(DEPENDENT));
    }

    /** A store whose next {@code failingDeletes} deletes from the controller throw; everything else delegates. */
    private static final class FailingDeletes implements Store {
        final AtomicInteger failingDeletes = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();
        private final Store delegate;

        FailingDeletes(Store delegate) {
            this.delegate = delegate;
        }

        @Override
        public ObjectNode create(StorageKey key, ObjectNode object) {
            return delegate.create(key, object);
        }

        @Override
        public ObjectNode update(StorageKey key, ObjectNode object, long expectedRevision) {
            return delegate.update(key, object, expectedRevision);
        }

        @Override
        public ObjectNode delete(StorageKey key, Preconditions preconditions) {
            if (!preconditions.equals(Preconditions.NONE) && failingDeletes.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                failed.incrementAndGet();
                throw new IllegalStateException("injected failure");
            }
            return delegate.delete(key, preconditions);
        }

        @Override
        public ObjectNode guaranteedUpdate(
                StorageKey key, Preconditions preconditions, UnaryOperator<ObjectNode> update) {
            return delegate.guaranteedUpdate(key, preconditions, update);
        }

        @Override
        public ObjectNode get(StorageKey key) {
            return delegate.get(key);
        }

        @Override
        public ListResult list(
                String group,
                String resource,
                String namespace,
                long atRevision,
                Predicate<ObjectNode> filter,
                int limit,
                String continueKey) {
            return delegate.list(group, resource, namespace, atRevision, filter, limit, continueKey);
        }

        @Override
        public StoreWatch watch(
                String group,
                String resource,
                String namespace,
                long fromRevision,
                Predicate<ObjectNode> filter,
                int bufferSize) {
            return delegate.watch(group, resource, namespace, fromRevision, filter, bufferSize);
        }

        @Override
        public StoreWatch listAndWatch(
                String group, String resource, String namespace, Predicate<ObjectNode> filter, int bufferSize) {
            return delegate.listAndWatch(group, resource, namespace, filter, bufferSize);
        }

        @Override
        public long currentRevision() {
            return delegate.currentRevision();
        }

        @Override
        public long compactedRevision() {
            return delegate.compactedRevision();
        }

        @Override
        public void compact(long revision) {
            delegate.compact(revision);
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
