package io.kubeloop.informer.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Status;
import io.kubeloop.client.errors.KubernetesApiException;
import io.kubeloop.client.resource.ListOptions;
import io.kubeloop.client.resource.ListPage;
import io.kubeloop.client.resource.WatchOptions;
import io.kubeloop.client.watch.WatchEvent;
import io.kubeloop.informer.reflector.ListerWatcher;
import io.kubeloop.informer.reflector.WatchStream;
import io.kubeloop.model.WatchEventType;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * A fake API server for one resource type, behind the {@link ListerWatcher} interface: client-go's
 * {@code FakeControllerSource}, plus the failures a real server produces.
 *
 * <p><b>State.</b> Objects keyed by (namespace, name, uid), a change log of one event per resourceVersion, and
 * {@code lastRV} (starts at 0). {@link #add}, {@link #modify} and {@link #delete} bump {@code lastRV}, stamp it on
 * the object (the caller's object is never kept: a deep copy is), log the change and send it to every open watch;
 * the {@code ...DropWatch} variants do the same without sending (a missed event).
 *
 * <p><b>list(options)</b>: deep copies of the current objects (sorted by namespace/name), list RV = lastRV.
 * Honours {@code limit} and {@code continue} (pages read from a snapshot taken at the first page;
 * {@link #expireContinueTokens()} makes the next continue fail with 410). A numeric {@code resourceVersion}
 * greater than lastRV fails like kube-apiserver's 504 "Too large resource version". Selectors are recorded, not
 * applied.
 *
 * <p><b>watch(options)</b>: {@code resourceVersion} = lastRV → live events; &gt; lastRV → error "resource
 * version in the future"; &lt; lastRV → the logged changes after it, then live events, or 410 Expired "too old
 * resource version" when the log was flushed ({@link #resetWatch()}) or does not reach back that far; "" or
 * "0" (or absent) → synthetic ADDED events for the current objects, then live. With {@code sendInitialEvents}:
 * ADDED for every current object, then a BOOKMARK with the initial-events-end mark at lastRV, then live, unless
 * {@link #refuseStreamingList(boolean)} made it fail with 422. An ERROR event is, as with the client's watch, the
 * stream's failure: {@code next()} throws the typed exception.
 *
 * <p><b>Faults.</b> {@link #failNextLists}/{@link #failNextWatches} (the next N calls throw, e.g.
 * {@link ApiErrors#tooManyRequests(int)}), {@link #setListError} (every list fails until cleared),
 * {@link #pauseLists()} (lists block until {@link #resumeLists()}), {@link #closeWatches()} (the server ends every
 * watch cleanly), {@link #failWatches(RuntimeException)} (every open watch fails with it), {@link #endWatchesWithError}
 * (an ERROR event), {@link #bookmark()}, {@link #resetWatch()} (end every watch and flush the log, forcing a relist)
 * and {@link #shutdown()}.
 *
 * <p><b>Observations.</b> Counts of list and watch calls, the options of each, the number of open watches.
 *
 * <p>Thread-safe. Events reach each watch in resourceVersion order; a watch's buffer is unbounded, so a
 * producer never blocks on a consumer that stopped reading.
 *
 * @param <T> the object type
 */
public final class FakeSource<T extends HasMetadata> implements ListerWatcher<T> {

    private static final JsonMapper COPIER = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition listsResumed = lock.newCondition();

    /** Guarded by lock: current objects by (namespace, name, uid), in key order. */
    private final Map<String, T> objects = new TreeMap<>();
    /** Guarded by lock: one change per resourceVersion, oldest first; flushed by resetWatch. */
    private final List<Change<T>> changeLog = new ArrayList<>();
    /** Guarded by lock. */
    private long lastRV;
    /** Guarded by lock. */
    private final Set<FakeWatch> watches = new LinkedHashSet<>();
    /** Guarded by lock: paged-list snapshots by continue-token id. */
    private final Map<String, Snapshot<T>> snapshots = new HashMap<>();

    private long nextSnapshotId;
    /** Guarded by lock. */
    private RuntimeException listError;

    private final Deque<Supplier<? extends RuntimeException>> listFailures = new ArrayDeque<>();
    private final Deque<Supplier<? extends RuntimeException>> watchFailures = new ArrayDeque<>();
    private boolean listsPaused;
    private boolean refuseStreamingList;
    private boolean shutDown;
    private final List<ListOptions> listRequests = new ArrayList<>();
    private final List<WatchOptions> watchRequests = new ArrayList<>();
    private final AtomicInteger listCalls = new AtomicInteger();
    private final AtomicInteger watchCalls = new AtomicInteger();

    private record Change<T>(long rv, WatchEventType type, T object) {}

    private record Snapshot<T>(List<T> items, String resourceVersion) {}

    /** An empty source. */
    public FakeSource() {}

    // ---- writes -------------------------------------------------------------------------------------------------

    /** Adds {@code object} and sends ADDED to every watch; returns the stored copy (with its resourceVersion). */
    public T add(T object) {
        return change(WatchEventType.ADDED, object, true);
    }

    /** Replaces {@code object} and sends MODIFIED to every watch. */
    public T modify(T object) {
        return change(WatchEventType.MODIFIED, object, true);
    }

    /** Removes {@code object} and sends DELETED (with a new resourceVersion) to every watch. */
    public T delete(T object) {
        return change(WatchEventType.DELETED, object, true);
    }

    /** {@link #add} without telling open watches: a missed event. */
    public T addDropWatch(T object) {
        return change(WatchEventType.ADDED, object, false);
    }

    /** {@link #modify} without telling open watches. */
    public T modifyDropWatch(T object) {
        return change(WatchEventType.MODIFIED, object, false);
    }

    /** {@link #delete} without telling open watches. */
    public T deleteDropWatch(T object) {
        return change(WatchEventType.DELETED, object, false);
    }

    private T change(WatchEventType type, T object, boolean broadcast) {
        Objects.requireNonNull(object, "object");
        if (object.getMetadata() == null || object.getMetadata().getName() == null) {
            throw new IllegalArgumentException("a FakeSource object needs metadata.name: " + object);
        }
        lock.lock();
        try {
            checkRunning();
            T copy = copy(object);
            lastRV++;
            copy.getMetadata().setResourceVersion(Long.toString(lastRV));
            String id = idOf(copy);
            switch (type) {
                case ADDED, MODIFIED -> objects.put(id, copy);
                case DELETED -> objects.remove(id);
                default -> throw new IllegalArgumentException(type.toString());
            }
            changeLog.add(new Change<>(lastRV, type, copy));
            if (broadcast) {
                for (FakeWatch w : watches) {
                    w.offer(new WatchEvent.Change<>(type, copy(copy)));
                }
            }
            return copy(copy);
        } finally {
            lock.unlock();
        }
    }

    // ---- ListerWatcher --------------------------------------------------------------------------------------------

    @Override
    public ListPage<T> list(ListOptions options) {
        Objects.requireNonNull(options, "options");
        listCalls.incrementAndGet();
        lock.lock();
        try {
            listRequests.add(options);
            while (listsPaused && !shutDown) {
                try {
                    listsResumed.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new UncheckedIOException(
                            "GET /api/v1/fake: interrupted", new InterruptedIOException("interrupted"));
                }
            }
            checkRunning();
            Supplier<? extends RuntimeException> failure = listFailures.poll();
            if (failure != null) {
                throw failure.get();
            }
            if (listError != null) {
                throw listError;
            }
            if (options.continueToken() != null && !options.continueToken().isEmpty()) {
                return nextPage(options);
            }
            String rv = options.resourceVersion();
            if (rv != null && !rv.isEmpty() && parseRv(rv) > lastRV) {
                throw ApiErrors.tooLargeResourceVersion(rv, Long.toString(lastRV));
            }
            List<T> items = new ArrayList<>(objects.size());
            objects.values().stream()
                    .sorted(Comparator.comparing(FakeSource::keyOf))
                    .forEach(items::add);
            String listRv = Long.toString(lastRV);
            if (options.limit() <= 0 || items.size() <= options.limit()) {
                return new ListPage<>(copies(items), listRv, null, null);
            }
            String snapshotId = Long.toString(++nextSnapshotId);
            snapshots.put(snapshotId, new Snapshot<>(items, listRv));
            return page(snapshotId, snapshots.get(snapshotId), 0, options.limit());
        } finally {
            lock.unlock();
        }
    }

    /** Guarded by lock. */
    private ListPage<T> nextPage(ListOptions options) {
        if (options.resourceVersion() != null && !options.resourceVersion().isEmpty()) {
            throw KubernetesApiException.fromStatus(
                    400,
                    ApiErrors.status(
                            400, "BadRequest", "specifying resource version is not allowed when using continue"),
                    "GET",
                    "/api/v1/fake");
        }
        String[] token = options.continueToken().split(":", 2);
        if (token.length != 2) {
            throw KubernetesApiException.fromStatus(
                    400,
                    ApiErrors.status(400, "BadRequest", "continue key is not valid: " + options.continueToken()),
                    "GET",
                    "/api/v1/fake");
        }
        Snapshot<T> snapshot = snapshots.get(token[0]);
        if (snapshot == null) {
            throw ApiErrors.continueExpired();
        }
        return page(token[0], snapshot, Integer.parseInt(token[1]), options.limit());
    }

    private ListPage<T> page(String snapshotId, Snapshot<T> snapshot, int from, long limit) {
        int to = limit <= 0
                ? snapshot.items().size()
                : (int) Math.min(snapshot.items().size(), from + limit);
        List<T> items = copies(snapshot.items().subList(from, to));
        if (to >= snapshot.items().size()) {
            snapshots.remove(snapshotId);
            return new ListPage<>(items, snapshot.resourceVersion(), null, null);
        }
        return new ListPage<>(items, snapshot.resourceVersion(), snapshotId + ":" + to, (long)
                (snapshot.items().size() - to));
    }

    @Override
    public WatchStream<T> watch(WatchOptions options) {
        Objects.requireNonNull(options, "options");
        watchCalls.incrementAndGet();
        lock.lock();
        try {
            watchRequests.add(options);
            checkRunning();
            Supplier<? extends RuntimeException> failure = watchFailures.poll();
            if (failure != null) {
                throw failure.get();
            }
            String rv = options.resourceVersion();
            FakeWatch w = new FakeWatch();
            if (Boolean.TRUE.equals(options.sendInitialEvents())) {
                if (refuseStreamingList) {
                    throw ApiErrors.streamingListRefused();
                }
                initialEvents(w);
                w.offer(new WatchEvent.Bookmark<>(Long.toString(lastRV), true));
            } else if (rv == null || rv.isEmpty() || rv.equals("0")) {
                initialEvents(w);
            } else {
                long from = parseRv(rv);
                if (from > lastRV) {
                    throw KubernetesApiException.fromStatus(
                            400,
                            ApiErrors.status(
                                    400,
                                    "BadRequest",
                                    "resource version in the future not supported: " + rv + " (" + lastRV + ")"),
                            "GET",
                            "/api/v1/fake");
                }
                if (from < lastRV) {
                    // Every change after `from` must still be in the log.
                    if (changeLog.isEmpty() || changeLog.getFirst().rv() > from + 1) {
                        throw ApiErrors.expired(rv, Long.toString(lastRV));
                    }
                    for (Change<T> c : changeLog) {
                        if (c.rv() > from) {
                            w.offer(new WatchEvent.Change<>(c.type(), copy(c.object())));
                        }
                    }
                }
            }
            watches.add(w);
            return w;
        } finally {
            lock.unlock();
        }
    }

    private void initialEvents(FakeWatch w) {
        objects.values().stream()
                .sorted(Comparator.comparing(FakeSource::keyOf))
                .forEach(o -> w.offer(new WatchEvent.Change<>(WatchEventType.ADDED, copy(o))));
    }

    // ---- faults ---------------------------------------------------------------------------------------------------

    /** The next {@code n} lists throw what {@code failure} makes (a fresh exception each time). */
    public void failNextLists(int n, Supplier<? extends RuntimeException> failure) {
        Objects.requireNonNull(failure, "failure");
        lock.lock();
        try {
            for (int i = 0; i < n; i++) {
                listFailures.add(failure);
            }
        } finally {
            lock.unlock();
        }
    }

    /** The next {@code n} watch opens throw what {@code failure} makes. */
    public void failNextWatches(int n, Supplier<? extends RuntimeException> failure) {
        Objects.requireNonNull(failure, "failure");
        lock.lock();
        try {
            for (int i = 0; i < n; i++) {
                watchFailures.add(failure);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Every list fails with {@code error} until this is called with null (client-go's {@code ListError}). */
    public void setListError(RuntimeException error) {
        lock.lock();
        try {
            listError = error;
        } finally {
            lock.unlock();
        }
    }

    /** Lists block (interruptibly) until {@link #resumeLists()}. */
    public void pauseLists() {
        lock.lock();
        try {
            listsPaused = true;
        } finally {
            lock.unlock();
        }
    }

    public void resumeLists() {
        lock.lock();
        try {
            listsPaused = false;
            listsResumed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Whether a watch with {@code sendInitialEvents=true} fails with 422, as on a server without watch-list. */
    public void refuseStreamingList(boolean refuse) {
        lock.lock();
        try {
            refuseStreamingList = refuse;
        } finally {
            lock.unlock();
        }
    }

    /** Continue tokens handed out so far fail with 410 (the server compacted the snapshot). */
    public void expireContinueTokens() {
        lock.lock();
        try {
            snapshots.clear();
        } finally {
            lock.unlock();
        }
    }

    /** Sends a BOOKMARK at lastRV to every open watch. */
    public void bookmark() {
        lock.lock();
        try {
            for (FakeWatch w : watches) {
                w.offer(new WatchEvent.Bookmark<>(Long.toString(lastRV), false));
            }
        } finally {
            lock.unlock();
        }
    }

    /** The server ends every open watch cleanly (a timeout, a restart): their {@code next()} returns null. */
    public void closeWatches() {
        endAll(null);
    }

    /** Every open watch fails with {@code error} after the events already sent (a broken stream). */
    public void failWatches(RuntimeException error) {
        endAll(Objects.requireNonNull(error, "error"));
    }

    /** Every open watch receives an ERROR event with {@code status}: its {@code next()} throws the typed error. */
    public void endWatchesWithError(Status status) {
        endAll(KubernetesApiException.fromWatchError(Objects.requireNonNull(status, "status"), "GET", "/api/v1/fake"));
    }

    /** Every open watch receives a 410 ERROR event "too old resource version" (keeps the log). */
    public void expireWatches() {
        lock.lock();
        try {
            endAll(ApiErrors.expired(Long.toString(lastRV), Long.toString(lastRV)));
        } finally {
            lock.unlock();
        }
    }

    /** Ends every watch and flushes the change log: a watch from any older resourceVersion gets 410. */
    public void resetWatch() {
        lock.lock();
        try {
            endAll(null);
            changeLog.clear();
        } finally {
            lock.unlock();
        }
    }

    /** Ends every watch for good; later calls fail. Idempotent. */
    public void shutdown() {
        lock.lock();
        try {
            shutDown = true;
            endAll(null);
            listsResumed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void endAll(RuntimeException failure) {
        lock.lock();
        try {
            for (FakeWatch w : watches) {
                w.end(failure);
            }
            watches.clear();
        } finally {
            lock.unlock();
        }
    }

    // ---- observations ---------------------------------------------------------------------------------------------

    /** How many times {@link #list} was called (failed calls included). */
    public int listCalls() {
        return listCalls.get();
    }

    /** How many times {@link #watch} was called (failed opens included). */
    public int watchCalls() {
        return watchCalls.get();
    }

    /** The options of every list call, in order. */
    public List<ListOptions> listRequests() {
        lock.lock();
        try {
            return List.copyOf(listRequests);
        } finally {
            lock.unlock();
        }
    }

    /** The options of every watch call, in order. */
    public List<WatchOptions> watchRequests() {
        lock.lock();
        try {
            return List.copyOf(watchRequests);
        } finally {
            lock.unlock();
        }
    }

    /** Watches open now: opened, not closed by the consumer and not ended by the source. */
    public int openWatches() {
        lock.lock();
        try {
            return watches.size();
        } finally {
            lock.unlock();
        }
    }

    /** The newest resourceVersion handed out ("0" before the first change). */
    public String lastResourceVersion() {
        lock.lock();
        try {
            return Long.toString(lastRV);
        } finally {
            lock.unlock();
        }
    }

    /** Deep copies of the current objects, sorted by namespace/name. */
    public List<T> objects() {
        lock.lock();
        try {
            return objects.values().stream()
                    .sorted(Comparator.comparing(FakeSource::keyOf))
                    .map(this::copy)
                    .toList();
        } finally {
            lock.unlock();
        }
    }

    // ---- helpers --------------------------------------------------------------------------------------------------

    private void checkRunning() {
        if (shutDown) {
            throw new IllegalStateException("the FakeSource was shut down");
        }
    }

    private static long parseRv(String rv) {
        try {
            return Long.parseLong(rv);
        } catch (NumberFormatException e) {
            throw KubernetesApiException.fromStatus(
                    400,
                    ApiErrors.status(400, "BadRequest", "invalid resource version \"" + rv + "\""),
                    "GET",
                    "/api/v1/fake");
        }
    }

    private static String keyOf(HasMetadata o) {
        String ns = o.getMetadata().getNamespace();
        return (ns == null || ns.isEmpty() ? "" : ns + "/") + o.getMetadata().getName();
    }

    private static String idOf(HasMetadata o) {
        String uid = o.getMetadata().getUid();
        return keyOf(o) + "\u0000" + (uid == null ? "" : uid);
    }

    @SuppressWarnings("unchecked")
    private T copy(T object) {
        return (T) COPIER.readValue(COPIER.writeValueAsBytes(object), object.getClass());
    }

    private List<T> copies(List<T> items) {
        List<T> out = new ArrayList<>(items.size());
        for (T o : items) {
            out.add(copy(o));
        }
        return out;
    }

    /** One watch: a queue of events, ended by the consumer (close) or the source (end). */
    private final class FakeWatch implements WatchStream<T> {
        /** Events, then at most one terminal marker. */
        private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();

        private volatile boolean closed;
        /** Set once when the stream has delivered its terminal marker: null for a clean end. */
        private volatile Terminal ended;

        private record Terminal(RuntimeException failure) {}

        void offer(WatchEvent<T> event) {
            queue.add(event);
        }

        void end(RuntimeException failure) {
            queue.add(new Terminal(failure));
        }

        @Override
        @SuppressWarnings("unchecked")
        public WatchEvent<T> next() throws InterruptedException {
            if (ended != null) {
                return finish(ended);
            }
            if (closed) {
                return null;
            }
            Object item = queue.take();
            if (closed) {
                return null;
            }
            if (item instanceof Terminal t) {
                ended = t;
                return finish(t);
            }
            return (WatchEvent<T>) item;
        }

        private WatchEvent<T> finish(Terminal t) {
            if (t.failure() != null && !closed) {
                throw t.failure();
            }
            return null;
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            queue.add(new Terminal(null));
            lock.lock();
            try {
                watches.remove(this);
            } finally {
                lock.unlock();
            }
        }
    }
}
