package io.kubeloop.client.resource;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.client.codec.UndecodableObject;
import io.kubeloop.client.codec.UndecodableObjects;
import io.kubeloop.client.errors.ExpiredException;
import io.kubeloop.client.errors.KubernetesApiException;
import io.kubeloop.client.errors.NotFoundException;
import io.kubeloop.client.internal.ItemDecoder;
import io.kubeloop.client.internal.JacksonMessages;
import io.kubeloop.client.transport.HttpTransport;
import io.kubeloop.client.watch.Watch;
import io.kubeloop.client.watch.WatchEvent;
import io.kubeloop.model.ResourceType;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The verbs of one resource type, in one namespace or in all: what client-go's typed clients and
 * {@code dynamic.ResourceInterface} offer. Get one from {@code KubernetesClient.resources(Pod.class)} or
 * {@code genericResources(...)}.
 *
 * <pre>{@code
 * ResourceClient<ConfigMap> cms = client.resources(ConfigMap.class).inNamespace("ops");
 * ConfigMap created = cms.create(configMap);
 * Optional<ConfigMap> found = cms.get("settings");
 * ListPage<ConfigMap> page = cms.list(ListOptions.builder().labelSelector("app=web").limit(100).build());
 * cms.patch("settings", PatchType.MERGE, "{\"data\":{\"k\":\"v\"}}", PatchOptions.none());
 * cms.edit("settings", cm -> { cm.getData().put("k", "v2"); return cm; });   // 409 if changed meanwhile
 * cms.serverSideApply(desired, "my-controller", false);
 * cms.delete("settings", DeleteOptions.defaults());
 * }</pre>
 *
 * <p>Immutable and thread-safe: {@link #inNamespace}, {@link #inAnyNamespace} and {@link #dryRun} return new
 * views sharing the transport. For a cluster-scoped type the namespace is ignored. Every non-2xx answer is a
 * {@code KubernetesApiException} subclass, except a 404 for the object itself in {@link #get}, which is an empty
 * Optional.
 *
 * <p>Writes take the namespace from the object when it has one; a client in one namespace refuses an object of
 * another (as the API server would, with a 400), and a client in all namespaces needs it on the object.
 */
public final class ResourceClient<T extends HasMetadata> {

    private final HttpTransport transport;
    private final ResourceType type;
    private final Class<T> javaType;
    /** Null: all namespaces (or a cluster-scoped type). */
    private final String namespace;

    private final boolean dryRun;
    /** How long a watch of this client may receive no bytes before it fails with WatchIdleTimeoutException. */
    private final Duration watchIdleTimeout;
    /** How objects read from the server are decoded (lists, watches, get and the answers to writes). */
    private final Decoding decoding;
    /** Binds one list item in the middle of a stream, where more tokens follow by design; a bad one costs itself. */
    private final ItemDecoder<T> items;
    /** What a list or watch does with an object that does not decode to T. */
    private final UndecodableObjects undecodable;

    private static final ObjectReader LIST_META_READER = Decoding.standard()
            .mapper()
            .readerFor(ListMeta.class)
            .without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private ResourceClient(
            HttpTransport transport,
            ResourceType type,
            Class<T> javaType,
            String namespace,
            boolean dryRun,
            Duration watchIdleTimeout) {
        this(
                transport,
                type,
                javaType,
                namespace,
                dryRun,
                watchIdleTimeout,
                Decoding.standard(),
                UndecodableObjects.FAIL);
    }

    private ResourceClient(
            HttpTransport transport,
            ResourceType type,
            Class<T> javaType,
            String namespace,
            boolean dryRun,
            Duration watchIdleTimeout,
            Decoding decoding,
            UndecodableObjects undecodable) {
        this.decoding = decoding;
        this.undecodable = undecodable;
        this.transport = transport;
        this.type = type;
        this.javaType = javaType;
        this.namespace = type.namespaced() ? namespace : null;
        this.dryRun = dryRun;
        this.watchIdleTimeout = watchIdleTimeout;
        this.items = new ItemDecoder<>(decoding.mapper(), javaType);
    }

    /**
     * A client of {@code type}, decoding objects as {@code javaType}, in {@code namespace} (null: all). The usual
     * way is {@code KubernetesClient.resources(...)}; this is for callers that build their own transport.
     */
    public static <T extends HasMetadata> ResourceClient<T> of(
            HttpTransport transport, ResourceType type, Class<T> javaType, String namespace) {
        return new ResourceClient<>(
                Objects.requireNonNull(transport, "transport"),
                Objects.requireNonNull(type, "type"),
                Objects.requireNonNull(javaType, "javaType"),
                namespace,
                false,
                Watch.DEFAULT_IDLE_TIMEOUT);
    }

    /** The same client in {@code namespace}. */
    public ResourceClient<T> inNamespace(String namespace) {
        return new ResourceClient<>(
                transport,
                type,
                javaType,
                ListOptions.requireText(namespace, "namespace"),
                dryRun,
                watchIdleTimeout,
                decoding,
                undecodable);
    }

    /** The same client across all namespaces: list and deleteCollection see every namespace. */
    public ResourceClient<T> inAnyNamespace() {
        return new ResourceClient<>(transport, type, javaType, null, dryRun, watchIdleTimeout, decoding, undecodable);
    }

    /** The same client whose writes are sent with {@code dryRun=All}: validated and answered, never stored. */
    public ResourceClient<T> dryRun() {
        return new ResourceClient<>(
                transport, type, javaType, namespace, true, watchIdleTimeout, decoding, undecodable);
    }

    /**
     * The same client whose watches fail with a {@code WatchIdleTimeoutException} after receiving no bytes for
     * {@code idleTimeout} (default {@link Watch#DEFAULT_IDLE_TIMEOUT}, or the {@code KubernetesClient}'s). Make it
     * longer than the server's bookmark interval, and watch with {@code allowWatchBookmarks}.
     */
    public ResourceClient<T> withWatchIdleTimeout(Duration idleTimeout) {
        if (idleTimeout == null || idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("watch idle timeout must be positive, was " + idleTimeout);
        }
        return new ResourceClient<>(transport, type, javaType, namespace, dryRun, idleTimeout, decoding, undecodable);
    }

    /**
     * The same client decoding what it reads with {@code decoding}: {@code Decoding.compact()} and
     * {@code withoutManagedFields()} are for caches such as informers, whose objects are never mutated (see
     * {@link Decoding}). The default is {@link Decoding#standard()}: ordinary mutable objects.
     */
    public ResourceClient<T> withDecoding(Decoding decoding) {
        return new ResourceClient<>(
                transport,
                type,
                javaType,
                namespace,
                dryRun,
                watchIdleTimeout,
                Objects.requireNonNull(decoding, "decoding"),
                undecodable);
    }

    /** How this client decodes what it reads. */
    public Decoding decoding() {
        return decoding;
    }

    /**
     * The same client doing {@code policy} with an object of a list or watch that does not decode to its Java type
     * (a custom resource whose schema moved on, a field the class declares with another type):
     * {@link UndecodableObjects#FAIL} (the default) fails the whole list or watch with an error naming the object;
     * {@link UndecodableObjects#SKIP} leaves it out of {@link ListPage#items()} and reports it in
     * {@link ListPage#undecodable()}, and hands a watch's event for it as a {@link WatchEvent.Undecodable}. Only the
     * object's namespace, name, resourceVersion, uid and the decoding error are reported, never its content.
     * {@link #get} and the answers to writes are single objects: they always fail.
     */
    public ResourceClient<T> withUndecodableObjects(UndecodableObjects policy) {
        return new ResourceClient<>(
                transport,
                type,
                javaType,
                namespace,
                dryRun,
                watchIdleTimeout,
                decoding,
                Objects.requireNonNull(policy, "policy"));
    }

    /** What a list or watch of this client does with an object that does not decode. */
    public UndecodableObjects undecodableObjects() {
        return undecodable;
    }

    /** How long a watch of this client may receive no bytes. */
    public Duration watchIdleTimeout() {
        return watchIdleTimeout;
    }

    /** The namespace of this client; empty for all namespaces or a cluster-scoped type. */
    public Optional<String> namespace() {
        return Optional.ofNullable(namespace);
    }

    /** The resource type: group, version, kind, plural, scope. */
    public ResourceType type() {
        return type;
    }

    /**
     * The object {@code name}, or empty when the server answers 404 for it. A 404 that is not about this object
     * (the resource type is not served, e.g. a CRD not installed) is thrown as {@link NotFoundException}.
     */
    public Optional<T> get(String name) {
        String path = objectPath(requireNamespace("get"), name, "");
        try {
            return Optional.of(transport.send("GET", path, null, null, this::readObject));
        } catch (NotFoundException e) {
            if (e.status().getDetails() != null
                    && name.equals(e.status().getDetails().getName())) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** Every object, in one request. */
    public ListPage<T> list() {
        return list(ListOptions.none());
    }

    /** One page: at most {@code options.limit()} objects, from {@code options.continueToken()}. */
    public ListPage<T> list(ListOptions options) {
        Query q = new Query();
        options.appendTo(q);
        return transport.send("GET", collectionPath(namespace) + q, null, null, this::readList);
    }

    /**
     * Every object, read page by page ({@code pageSize} a page) from one snapshot, as client-go's pager: the
     * first page is read at {@code options}' resourceVersion; the following pages follow the {@code continue}
     * token (without a resourceVersion, which the server refuses beside {@code continue}). If the token expires
     * (410) before the last page, the pages read so far are dropped and the whole list is read again in one
     * request at the requested resourceVersion — consistent, but unpaged.
     *
     * @return all objects, with the list's resourceVersion and no continue token
     */
    public ListPage<T> listAll(int pageSize, ListOptions options) {
        if (pageSize <= 0) {
            throw new IllegalArgumentException("pageSize must be > 0: " + pageSize);
        }
        List<T> items = new ArrayList<>();
        List<UndecodableObject> skipped = new ArrayList<>();
        ListOptions page = options.withPage(pageSize, options.continueToken());
        String resourceVersion = null;
        // Bounded by the server: each page advances the continue token; a server that repeats one is a bug
        // we stop on rather than loop forever.
        String previousToken = null;
        while (true) {
            ListPage<T> result;
            try {
                result = list(page);
            } catch (ExpiredException e) {
                if (page.continueToken() == null) {
                    throw e;
                }
                ListPage<T> full = list(options.withPage(0, null));
                return new ListPage<>(full.items(), full.resourceVersion(), null, null, full.undecodable());
            }
            items.addAll(result.items());
            skipped.addAll(result.undecodable());
            if (resourceVersion == null) {
                resourceVersion = result.resourceVersion();
            }
            if (!result.hasMore()) {
                return new ListPage<>(items, resourceVersion, null, null, skipped);
            }
            if (result.continueToken().equals(previousToken)) {
                throw new IllegalStateException(
                        "the server repeated the continue token of " + collectionPath(namespace));
            }
            previousToken = result.continueToken();
            page = new ListOptions(
                    options.labelSelector(),
                    options.fieldSelector(),
                    pageSize,
                    result.continueToken(),
                    null,
                    null,
                    options.timeoutSeconds());
        }
    }

    /**
     * Opens a watch of this client's namespace (or all namespaces) and returns it once the server has answered
     * the setup with 200; events are then read on the watch's own thread. The setup is a GET and follows the
     * transport's rules: rate limited, retried on 429/503 with Retry-After and on refused connections, a 401
     * retried once after the credentials are read again, any other non-2xx answer thrown as its typed
     * {@code KubernetesApiException}. The request timeout bounds the wait for the headers only.
     *
     * <ul>
     *   <li>ADDED, MODIFIED, DELETED: {@link WatchEvent.Change} with the object as {@code T};</li>
     *   <li>an object that does not decode to {@code T}: the watch fails naming it, or, with
     *       {@link #withUndecodableObjects withUndecodableObjects(SKIP)}, a {@link WatchEvent.Undecodable} in its
     *       place;</li>
     *   <li>BOOKMARK: {@link WatchEvent.Bookmark} with its resourceVersion and initial-events-end mark;</li>
     *   <li>ERROR: never an event here. It ends the watch, and {@code next()} (and iteration) throws
     *       {@code KubernetesApiException.fromWatchError(status, "GET", path)} — an {@code ExpiredException}
     *       for a 410 — after the events before it;</li>
     *   <li>the server closing the stream ({@code timeoutSeconds}, a restart): {@code next()} returns null;</li>
     *   <li>no bytes for the idle timeout: {@code next()} throws {@code WatchIdleTimeoutException};</li>
     *   <li>{@code close()}: releases the reading thread and the connection at once.</li>
     * </ul>
     *
     * @throws io.kubeloop.client.errors.KubernetesApiException the setup was answered with a non-2xx code
     * @throws java.io.UncheckedIOException the setup got no answer
     */
    public Watch<T> watch(WatchOptions options) {
        Objects.requireNonNull(options, "options");
        String path = collectionPath(namespace);
        InputStream body = transport.openStream(path + options.toQuery());
        String description = "watch of " + type.plural()
                + (type.namespaced() ? namespace == null ? " in all namespaces" : " in " + namespace : "");
        Watch.Builder<T> watch = Watch.builder(body, javaType)
                .mapper(decoding.mapper())
                .idleTimeout(watchIdleTimeout)
                .clock(transport.clock())
                .description(description)
                .undecodableObjects(undecodable)
                .errorEvents(status -> KubernetesApiException.fromWatchError(status, "GET", path));
        try {
            return watch.start();
        } catch (RuntimeException | Error e) {
            try {
                body.close();
            } catch (IOException | RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** Creates {@code object} (its {@code generateName} is honoured); returns it as stored. */
    public T create(T object) {
        String ns = writeNamespace(object);
        return transport.send(
                "POST",
                collectionPath(ns) + writeQuery(),
                "application/json",
                Decoding.standard().mapper().writeValueAsBytes(object),
                this::readObject);
    }

    /**
     * Replaces {@code object}. With a {@code metadata.resourceVersion} the write is conditional: a stale one is
     * a {@code ConflictException} (409); without one it overwrites whatever is stored.
     */
    public T update(T object) {
        return put(object, "");
    }

    /** Replaces the {@code status} of {@code object} (the status subresource); the rest is ignored. */
    public T updateStatus(T object) {
        return put(object, "/status");
    }

    /**
     * Patches object {@code name} with {@code body} in the {@code patchType} format. {@link PatchType#APPLY} needs
     * {@code options.fieldManager()} and creates the object when it does not exist. To compute a patch from a
     * change to an object, use {@link #edit}; to apply an object you built, {@link #serverSideApply}.
     */
    public T patch(String name, PatchType patchType, String body, PatchOptions options) {
        Objects.requireNonNull(patchType, "patchType");
        Objects.requireNonNull(body, "body");
        return sendPatch(
                requireNamespace("patch"), name, "", patchType, body.getBytes(StandardCharsets.UTF_8), options);
    }

    /**
     * Patches the {@code status} subresource of object {@code name} with {@code body} in the {@code patchType}
     * format: as {@link #patch}, but only the status changes (the server ignores the rest), and a type without a
     * status subresource answers 404 ({@link NotFoundException}). {@link PatchType#APPLY} needs
     * {@code options.fieldManager()}; {@link #serverSideApplyStatus} builds that body from an object.
     */
    public T patchStatus(String name, PatchType patchType, String body, PatchOptions options) {
        Objects.requireNonNull(patchType, "patchType");
        Objects.requireNonNull(body, "body");
        return sendPatch(
                requireNamespace("patchStatus"),
                name,
                "/status",
                patchType,
                body.getBytes(StandardCharsets.UTF_8),
                options);
    }

    /**
     * Reads object {@code name}, hands a deep copy of it to {@code edit}, and sends what {@code edit} changed as a
     * JSON merge patch (RFC 7386: changed and added fields, {@code null} for removed ones, lists whole) that also
     * carries the {@code metadata.resourceVersion} it read. Returns the object as stored.
     *
     * <p><b>Concurrency:</b> optimistic, as {@code kubectl edit}: the API server treats the resourceVersion in the
     * patch as a precondition, so if anyone changed the object between the read and the patch, nothing is
     * written and a {@link io.kubeloop.client.errors.ConflictException} (409) is thrown; read again and edit
     * again (the function may run more than once: keep it free of side effects). A change {@code edit} makes to
     * {@code metadata.resourceVersion} itself is ignored. (fabric8's {@code edit} sends a JSON patch without the
     * resourceVersion and so overwrites a concurrent change to the same fields; this one does not.)
     *
     * <p>When {@code edit} changes nothing, no request is sent and the object read is returned. A missing object
     * is a {@link NotFoundException}; a change the server refuses is its typed exception (an invalid value:
     * {@link io.kubeloop.client.errors.InvalidException}). Honours {@link #dryRun()}.
     *
     * @param edit changes the copy in place and returns it, or returns another object; never null
     */
    public T edit(String name, UnaryOperator<T> edit) {
        Objects.requireNonNull(edit, "edit");
        String ns = requireNamespace("edit");
        // Not get(): a missing object is the server's NotFoundException here, not an empty Optional.
        T current = transport.send("GET", objectPath(ns, name, ""), null, null, this::readObject);
        JsonMapper mapper = Decoding.standard().mapper();
        ObjectNode before = mapper.valueToTree(current);
        // A copy through the standard decoding: mutable whatever this client's decoding is.
        T edited = edit.apply(mapper.treeToValue(before, javaType));
        if (edited == null) {
            throw new IllegalArgumentException("the edit function returned null for " + type.kind() + " " + name);
        }
        ObjectNode after = mapper.valueToTree(edited);
        ObjectNode patch = MergePatches.diff(before, after);
        patch.remove("status"); // served by the status subresource; a change there is ignored by the server
        JsonNode metaPatch = patch.get("metadata");
        if (metaPatch instanceof ObjectNode m) {
            m.remove("resourceVersion");
            if (m.isEmpty()) {
                patch.remove("metadata");
            }
        }
        if (patch.isEmpty()) {
            return current;
        }
        String resourceVersion =
                current.getMetadata() == null ? null : current.getMetadata().getResourceVersion();
        if (resourceVersion != null) {
            patch.withObjectProperty("metadata").put("resourceVersion", resourceVersion);
        }
        return sendPatch(ns, name, "", PatchType.MERGE, mapper.writeValueAsBytes(patch), PatchOptions.none());
    }

    /**
     * Server-side apply of {@code object} by {@code fieldManager}: sends it whole as an
     * {@code application/apply-patch+yaml} body (JSON is YAML) to the object's name and namespace. The server
     * creates the object when it is missing, sets the fields the object holds, records them as owned by
     * {@code fieldManager}, and removes the fields this manager owned before and no longer sends. So send only the
     * fields you mean to own (a fresh object, not one read from the server with every field filled in).
     *
     * <p>{@code metadata.managedFields} is left out of the request (an apply request must not carry it), so an
     * object read from the server can be applied back. A {@code metadata.resourceVersion} on the object is a
     * precondition: a stale one is a {@link io.kubeloop.client.errors.ConflictException}. A field another manager
     * owns with a different value is a conflict (409) on kube-apiserver unless {@code force} is true, which takes
     * the field over. Invalid objects are {@link io.kubeloop.client.errors.InvalidException}s. Honours
     * {@link #dryRun()}.
     *
     * @return the object as stored after the apply
     */
    public T serverSideApply(T object, String fieldManager, boolean force) {
        return apply(object, fieldManager, force, "");
    }

    /**
     * Server-side apply of {@code object}'s {@code status} by {@code fieldManager}, through the status subresource:
     * as {@link #serverSideApply}, but only the status fields the object holds are applied and owned (the rest of
     * the body only names the object). The object must exist.
     */
    public T serverSideApplyStatus(T object, String fieldManager, boolean force) {
        return apply(object, fieldManager, force, "/status");
    }

    private T apply(T object, String fieldManager, boolean force, String subresource) {
        if (fieldManager == null || fieldManager.isBlank()) {
            throw new IllegalArgumentException("serverSideApply needs a fieldManager (who owns the fields), was "
                    + (fieldManager == null ? "null" : "\"" + fieldManager + "\""));
        }
        String ns = writeNamespace(object);
        String name = object.getMetadata() == null ? null : object.getMetadata().getName();
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("serverSideApply needs metadata.name on the " + type.kind());
        }
        JsonMapper mapper = Decoding.standard().mapper();
        ObjectNode body = mapper.valueToTree(object);
        if (!body.path("apiVersion").isString()) {
            body.put("apiVersion", type.gvk().apiVersion());
        }
        if (!body.path("kind").isString()) {
            body.put("kind", type.kind());
        }
        if (body.get("metadata") instanceof ObjectNode meta) {
            meta.remove("managedFields");
        }
        return sendPatch(
                ns,
                name,
                subresource,
                PatchType.APPLY,
                mapper.writeValueAsBytes(body),
                PatchOptions.apply(fieldManager).withForce(force));
    }

    private T sendPatch(
            String ns, String name, String subresource, PatchType patchType, byte[] body, PatchOptions options) {
        Objects.requireNonNull(options, "options");
        if (patchType == PatchType.APPLY && options.fieldManager() == null) {
            throw new IllegalArgumentException("an apply patch needs a fieldManager: PatchOptions.apply(manager)");
        }
        Query q = new Query();
        if (options.dryRun() || dryRun) {
            q.add("dryRun", "All");
        }
        q.add("fieldManager", options.fieldManager());
        if (options.force()) {
            q.add("force", "true");
        }
        return transport.send(
                "PATCH", objectPath(ns, name, subresource) + q, patchType.contentType(), body, this::readObject);
    }

    /** Deletes {@code name} with the default options. */
    public Optional<T> delete(String name) {
        return delete(name, DeleteOptions.defaults());
    }

    /**
     * Deletes {@code name}. Returns the object as the server answered: its final state, or the object still
     * present with a {@code deletionTimestamp} when finalizers (or a foreground deletion) hold it; empty when
     * the server answers with a {@code Status} instead (kube-apiserver does for some types). A failed
     * precondition is a {@code ConflictException}, a missing object a {@code NotFoundException}.
     */
    public Optional<T> delete(String name, DeleteOptions options) {
        byte[] body = Decoding.standard().mapper().writeValueAsBytes(options.toJson(dryRun));
        return transport.send(
                "DELETE",
                objectPath(requireNamespace("delete"), name, ""),
                "application/json",
                body,
                this::readObjectOrStatus);
    }

    /**
     * Deletes every object {@code selection} matches (selectors only; paging options are ignored by the server)
     * in this client's namespace, or in all. Returns the deleted objects as the server lists them.
     */
    public List<T> deleteCollection(ListOptions selection, DeleteOptions options) {
        Query q = new Query();
        q.add("labelSelector", selection.labelSelector());
        q.add("fieldSelector", selection.fieldSelector());
        byte[] body = Decoding.standard().mapper().writeValueAsBytes(options.toJson(dryRun));
        return transport
                .send("DELETE", collectionPath(namespace) + q, "application/json", body, this::readList)
                .items();
    }

    /** The scale subresource of {@code name}. */
    public Scale getScale(String name) {
        return transport.send(
                "GET", objectPath(requireNamespace("getScale"), name, "/scale"), null, null, ResourceClient::readScale);
    }

    /** Sets the desired replicas of {@code name} through its scale subresource (unconditionally). */
    public Scale updateScale(String name, int replicas) {
        if (replicas < 0) {
            throw new IllegalArgumentException("replicas must be ≥ 0: " + replicas);
        }
        String ns = requireNamespace("updateScale");
        ObjectNode scale = Decoding.standard().mapper().createObjectNode();
        scale.put("apiVersion", "autoscaling/v1");
        scale.put("kind", "Scale");
        ObjectNode meta = scale.putObject("metadata");
        meta.put("name", name);
        if (ns != null) {
            meta.put("namespace", ns);
        }
        scale.putObject("spec").put("replicas", replicas);
        return transport.send(
                "PUT",
                objectPath(ns, name, "/scale") + writeQuery(),
                "application/json",
                Decoding.standard().mapper().writeValueAsBytes(scale),
                ResourceClient::readScale);
    }

    private T put(T object, String subresource) {
        String ns = writeNamespace(object);
        String name = object.getMetadata() == null ? null : object.getMetadata().getName();
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("update needs metadata.name on the " + type.kind());
        }
        return transport.send(
                "PUT",
                objectPath(ns, name, subresource) + writeQuery(),
                "application/json",
                Decoding.standard().mapper().writeValueAsBytes(object),
                this::readObject);
    }

    private String writeQuery() {
        return dryRun ? "?dryRun=All" : "";
    }

    /** The namespace of a write: the object's, else this client's; they must agree. */
    private String writeNamespace(T object) {
        Objects.requireNonNull(object, "object");
        if (!type.namespaced()) {
            return null;
        }
        String own = object.getMetadata() == null ? null : object.getMetadata().getNamespace();
        if (own != null && !own.isEmpty()) {
            if (namespace != null && !namespace.equals(own)) {
                throw new IllegalArgumentException("the " + type.kind() + "'s namespace \"" + own
                        + "\" is not this client's namespace \"" + namespace + "\"");
            }
            return own;
        }
        if (namespace == null) {
            throw new IllegalArgumentException("the " + type.kind()
                    + " has no metadata.namespace and the client is in all namespaces: use inNamespace(ns)");
        }
        return namespace;
    }

    private String requireNamespace(String verb) {
        if (type.namespaced() && namespace == null) {
            throw new IllegalStateException(
                    verb + " of one " + type.kind() + " needs a namespace: use inNamespace(ns)");
        }
        return namespace;
    }

    private String collectionPath(String ns) {
        StringBuilder sb = new StringBuilder(
                type.group().isEmpty() ? "/api/" + type.version() : "/apis/" + type.group() + "/" + type.version());
        if (ns != null) {
            sb.append("/namespaces/").append(Query.encode(ns));
        }
        return sb.append('/').append(type.plural()).toString();
    }

    private String objectPath(String ns, String name, String subresource) {
        ListOptions.requireText(name, "name");
        return collectionPath(ns) + "/" + Query.encode(name) + subresource;
    }

    private T readObject(InputStream in) throws IOException {
        try {
            return complete(decoding.mapper().readValue(in, javaType));
        } catch (JacksonException e) {
            throw new IOException("not a " + type.kind() + ": " + e.getOriginalMessage(), e);
        }
    }

    private Optional<T> readObjectOrStatus(InputStream in) throws IOException {
        try {
            JsonNode tree = decoding.mapper().readTree(in);
            if ("Status".equals(tree.path("kind").asString(null)) && !"Status".equals(type.kind())) {
                return Optional.empty();
            }
            return Optional.of(complete(decoding.mapper().treeToValue(tree, javaType)));
        } catch (JacksonException e) {
            throw new IOException("not a " + type.kind() + ": " + e.getOriginalMessage(), e);
        }
    }

    /**
     * Reads a list item by item from the stream: the items are bound one at a time, never as one tree. Items of
     * a list carry no apiVersion and kind on the wire; {@link #complete} sets them.
     */
    private ListPage<T> readList(InputStream in) throws IOException {
        List<T> decoded = new ArrayList<>();
        List<UndecodableObject> skipped = List.of();
        ListMeta meta = null;
        try (JsonParser p = decoding.mapper().createParser(in)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("a " + type.listKind() + " is a JSON object");
            }
            while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals("metadata") && value == JsonToken.START_OBJECT) {
                    meta = LIST_META_READER.readValue(p);
                } else if (field.equals("items") && value == JsonToken.START_ARRAY) {
                    while (p.nextToken() == JsonToken.START_OBJECT) {
                        try {
                            decoded.add(complete(items.read(p)));
                        } catch (ItemDecoder.Undecodable e) {
                            if (undecodable == UndecodableObjects.FAIL) {
                                throw new IOException("a " + type.listKind() + " item " + e.getMessage()
                                        + " (a client withUndecodableObjects(SKIP) lists the others)");
                            }
                            if (skipped.isEmpty()) {
                                skipped = new ArrayList<>();
                            }
                            skipped.add(e.object());
                        }
                    }
                } else {
                    p.skipChildren();
                }
            }
        } catch (JacksonException e) {
            throw new IOException("not a " + type.listKind() + ": " + JacksonMessages.describe(e), e);
        }
        if (meta == null) {
            return new ListPage<>(decoded, null, null, null, skipped);
        }
        String token = meta.getContinue();
        return new ListPage<>(
                decoded,
                meta.getResourceVersion(),
                token == null || token.isEmpty() ? null : token,
                meta.getRemainingItemCount(),
                skipped);
    }

    private T complete(T object) {
        if (object instanceof GenericKubernetesResource g) {
            if (g.getApiVersion() == null) {
                g.setApiVersion(type.gvk().apiVersion());
            }
            if (g.getKind() == null) {
                g.setKind(type.kind());
            }
        }
        return object;
    }

    private static Scale readScale(InputStream in) throws IOException {
        try {
            JsonNode s = Decoding.standard().mapper().readTree(in);
            JsonNode m = s.path("metadata");
            return new Scale(
                    m.path("name").asString(null),
                    m.path("namespace").asString(null),
                    m.path("resourceVersion").asString(null),
                    s.path("spec").path("replicas").asInt(0),
                    s.path("status").path("replicas").asInt(0),
                    s.path("status").path("selector").asString(null));
        } catch (JacksonException e) {
            throw new IOException("not a Scale: " + e.getOriginalMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "ResourceClient{" + type.qualifiedName() + "/" + type.version()
                + (namespace == null ? "" : ", namespace=" + namespace) + (dryRun ? ", dryRun" : "") + "}";
    }
}
