package io.kubeloop.apiserver.internal.http;

import static io.kubeloop.apiserver.internal.http.QueryParameters.methodNotAllowed;

import com.sun.net.httpserver.HttpExchange;
import io.kubeloop.apiserver.internal.lifecycle.DeleteOptions;
import io.kubeloop.apiserver.internal.lifecycle.ObjectLifecycle;
import io.kubeloop.apiserver.internal.patch.ManagedFields;
import io.kubeloop.apiserver.internal.patch.PatchSchema;
import io.kubeloop.apiserver.internal.registry.Admission;
import io.kubeloop.apiserver.internal.registry.Bodies;
import io.kubeloop.apiserver.internal.registry.FieldValidation;
import io.kubeloop.apiserver.internal.registry.Warnings;
import io.kubeloop.apiserver.internal.registry.WriteOptions;
import io.kubeloop.apiserver.internal.storage.ListResult;
import io.kubeloop.apiserver.internal.storage.StorageKey;
import io.kubeloop.apiserver.internal.storage.Store;
import io.kubeloop.clock.Clock;
import io.kubeloop.model.ResourceType;
import io.kubeloop.model.Statuses;
import java.io.IOException;
import java.util.Map;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The write verbs: create, update, patch (JSON, merge, strategic merge, server-side apply), the {@code /scale}
 * writes, delete and deletecollection, with kube-apiserver's optimistic concurrency, dry run and managedFields.
 *
 * <p>Every write runs in kube's order: the body is parsed ({@link Bodies}) and type-checked ({@link
 * Admission#decoded}), the server's metadata rules complete it ({@link ObjectRules}), the resource's strategy
 * admits it ({@link Admission#create}/{@link Admission#update}), then Service addresses, lifecycle checks and the
 * custom resources' schema; only then is it stored. Any stage may refuse with a Status, and nothing is stored.
 */
final class WriteEndpoints {

    private final JsonMapper json;
    private final Store store;
    private final Clock clock;
    private final Responses responses;
    private final ServedObjects served;
    private final ObjectLifecycle lifecycle;
    private final Protobuf protobuf;
    private final Admission admission;
    private final Bodies bodies;
    private final ServiceAddresses serviceAddresses;
    private final ServerExtensions extensions;
    private final Evictions evictions;
    private final Bindings bindings;

    WriteEndpoints(
            JsonMapper json,
            Store store,
            Clock clock,
            Responses responses,
            ServedObjects served,
            ObjectLifecycle lifecycle,
            Protobuf protobuf,
            Admission admission,
            Bodies bodies,
            ServiceAddresses serviceAddresses,
            ServerExtensions extensions) {
        this.json = json;
        this.store = store;
        this.clock = clock;
        this.responses = responses;
        this.served = served;
        this.lifecycle = lifecycle;
        this.protobuf = protobuf;
        this.admission = admission;
        this.bodies = bodies;
        this.serviceAddresses = serviceAddresses;
        this.extensions = extensions;
        this.evictions = new Evictions(json, store, lifecycle);
        this.bindings = new Bindings(store, clock);
    }

    /**
     * POST of a v1 Binding to {@code pods/{name}/binding} or to the legacy {@code bindings} collection: see
     * {@link Bindings}; 201 Success.
     */
    void bind(ResourceRequest request, ResourceType pods) throws IOException {
        RequestInfo info = request.info();
        WriteOptions options = request.writeOptions();
        ObjectNode binding =
                admission.decoded(Bindings.BINDINGS, readObject(request, "v1", "Binding", options), options);
        requireSameNamespace(request, binding);
        io.fabric8.kubernetes.api.model.Status success = bindings.bind(
                pods,
                info.namespace(),
                info.subresource().equals(ResourceType.BINDING) ? info.name() : null,
                binding,
                options.dryRun());
        responses.object(request, 201, json.valueToTree(success));
    }

    /** POST of a policy/v1 Eviction to {@code pods/{name}/eviction}: see {@link Evictions}; 201 Success. */
    void evict(ResourceRequest request) throws IOException {
        RequestInfo info = request.info();
        ObjectNode eviction = readObject(request, "policy/v1", "Eviction", request.writeOptions());
        io.fabric8.kubernetes.api.model.Status success =
                evictions.evict(request.type(), info.namespace(), info.name(), eviction, request.query());
        success.setCode(201);
        responses.object(request.exchange(), 201, json.valueToTree(success));
    }

    void create(ResourceRequest request) throws IOException {
        RequestInfo info = request.info();
        ResourceType type = request.type();
        if (!info.subresource().isEmpty()) {
            throw methodNotAllowed();
        }
        WriteOptions options = request.writeOptions();
        ObjectNode object = admission.decoded(type, readObject(request, options), options);
        requireSameNamespace(request, object);
        String manager = fieldManager(request, "CreateOptions");
        ObjectRules.prepareCreate(type, object, info.namespace(), clock.now());
        // kube defaults at decoding, before the field manager records the write; admission, PrepareForCreate and
        // validation come after it, so what they set is nobody's field
        admission.defaults(type, object);
        ManagedFields.recordUpdate(null, object, manager, type.gvk().apiVersion(), "", schema(type), clock.now());
        admission.create(type, object, options);
        ObjectNode admitted = extensions.admit(type, null, object, "", options);
        if (type.namespaced()) {
            requireNamespace(info.namespace());
        }
        StorageKey key = new StorageKey(
                type.group(),
                type.plural(),
                type.namespaced() ? info.namespace() : "",
                admitted.get("metadata").get("name").asString());
        lifecycle.admitCreate(type, info.namespace(), admitted);
        if (options.dryRun() && exists(key)) {
            throw new ApiException(Statuses.alreadyExists(type.group(), type.plural(), key.name()));
        }
        responses.object(request, 201, storeNew(type, key, admitted, options.dryRun()));
    }

    /**
     * Stores a new object (or, for a dry run, returns it as it would be stored), after giving a Service its
     * addresses under the allocator's lock.
     */
    private ObjectNode storeNew(ResourceType type, StorageKey key, ObjectNode object, boolean dryRun) {
        return serviceAddresses.locked(type, () -> {
            serviceAddresses.admit(type, null, object);
            return dryRun ? object : extensions.written(type, store.create(key, object));
        });
    }

    void update(ResourceRequest request) throws IOException {
        RequestInfo info = request.info();
        ResourceType type = request.type();
        WriteOptions options = request.writeOptions();
        ObjectNode object = admission.decoded(type, readObject(request, options), options);
        String bodyName = object.path("metadata").path("name").asString("");
        if (!bodyName.isEmpty() && !bodyName.equals(info.name())) {
            throw new ApiException(Statuses.badRequest("the name of the object (" + bodyName
                    + ") does not match the name on the URL (" + info.name() + ")"));
        }
        requireSameNamespace(request, object);
        boolean statusOnly = info.subresource().equals("status");
        String manager = fieldManager(request, "UpdateOptions");
        responses.object(request, 200, conditionalUpdate(request, manager, current -> {
            ObjectRules.checkUidPrecondition(type, current, object);
            return new Desired(object, ObjectRules.prepareUpdate(type, current, object.deepCopy(), statusOnly));
        }));
    }

    /**
     * What a client wants an object to become: {@code sent} is what it sent (whose resourceVersion, if any,
     * must be the current one), {@code next} the object to store.
     */
    private record Desired(JsonNode sent, ObjectNode next) {}

    /**
     * Read-modify-write with kube-apiserver's optimistic concurrency: {@code change} turns the current object
     * into what the client wants; a resourceVersion in what it sent that is not the current one is a 409
     * Conflict; with {@code dryRun=All} nothing is stored and the would-be result is returned. The write is
     * recorded in {@code managedFields} for {@code manager} (an {@code Update}; null for server-side apply,
     * which records its own {@code Apply} entry).
     */
    private ObjectNode conditionalUpdate(
            ResourceRequest request, String manager, java.util.function.Function<ObjectNode, Desired> change) {
        RequestInfo info = request.info();
        ResourceType type = request.type();
        WriteOptions options = request.writeOptions();
        boolean dryRun = options.dryRun();
        try {
            return extensions.written(
                    type,
                    serviceAddresses.locked(
                            type,
                            () -> lifecycle.update(request.key(), current -> {
                                Desired d = change.apply(current);
                                admission.update(type, current, d.next(), info.subresource(), options);
                                serviceAddresses.admit(type, current, d.next());
                                lifecycle.checkWrite(type, current, d.next());
                                extensions.admit(type, current, d.next(), info.subresource(), options);
                                String rv = d.sent()
                                        .path("metadata")
                                        .path("resourceVersion")
                                        .asString("");
                                if (!rv.isEmpty()
                                        && !rv.equals(current.path("metadata")
                                                .path("resourceVersion")
                                                .asString(""))) {
                                    throw new ApiException(Statuses.conflict(type.group(), type.plural(), info.name()));
                                }
                                if (manager != null) {
                                    ManagedFields.recordUpdate(
                                            current,
                                            d.next(),
                                            manager,
                                            type.gvk().apiVersion(),
                                            info.subresource(),
                                            schema(type),
                                            clock.now());
                                }
                                if (dryRun) {
                                    throw new DryRunResult(d.next());
                                }
                                return d.next();
                            })));
        } catch (DryRunResult preview) {
            return preview.object;
        }
    }

    void patch(ResourceRequest request, Patches patchType) throws IOException {
        RequestInfo info = request.info();
        ResourceType type = request.type();
        WriteOptions options = request.writeOptions();
        byte[] body = RequestBody.read(request.exchange());
        JsonNode patch = patchType == Patches.APPLY_PATCH ? bodies.yaml(body, options) : bodies.json(body, options);
        String fieldManager = request.param("fieldManager");
        String manager = fieldManager(request, "PatchOptions");
        validatePatchOptions(request, patchType);
        StorageKey key = request.key();
        if (patchType == Patches.APPLY_PATCH) {
            checkApplyConfiguration(request, patch, exists(key));
        }
        boolean statusOnly = info.subresource().equals("status");
        if (patchType == Patches.APPLY_PATCH && !exists(key)) {
            ObjectNode created = admission.patched(
                    type,
                    Admission.PatchType.APPLY,
                    patchType.apply(type, null, patch, fieldManager, clock.now()),
                    options);
            ObjectRules.prepareCreate(type, created, info.namespace(), clock.now());
            ObjectRules.metadata(created).put("name", info.name());
            admission.create(type, created, options);
            if (type.namespaced()) {
                requireNamespace(info.namespace());
            }
            lifecycle.admitCreate(type, info.namespace(), created);
            extensions.admit(type, null, created, "", options);
            responses.object(request, 201, storeNew(type, key, created, options.dryRun()));
            return;
        }
        responses.object(
                request, 200, conditionalUpdate(request, patchType == Patches.APPLY_PATCH ? null : manager, current -> {
                    ObjectNode patched = admission.patched(
                            type,
                            admissionPatchType(patchType),
                            patchType.apply(type, current, patch, fieldManager, clock.now()),
                            options);
                    return new Desired(patched, ObjectRules.prepareUpdate(type, current, patched, statusOnly));
                }));
    }

    /**
     * kube-apiserver's ValidatePatchOptions: {@code force} only on an apply patch (any value but {@code 0} and
     * {@code false} is true, as kube decodes it, so {@code force=maybe} forces), and an apply patch names its
     * {@code fieldManager}. Every error at once, as one 422 {@code PatchOptions.meta.k8s.io "" is invalid}.
     */
    private static void validatePatchOptions(ResourceRequest request, Patches patchType) {
        java.util.List<Statuses.FieldError> errors = new java.util.ArrayList<>();
        if (patchType != Patches.APPLY_PATCH) {
            if (request.param("force") != null) {
                errors.add(new Statuses.FieldError("Forbidden", "force", "may not be specified for non-apply patch"));
            }
        } else {
            String fieldManager = request.param("fieldManager");
            if (fieldManager == null || fieldManager.isEmpty()) {
                errors.add(new Statuses.FieldError("Required value", "fieldManager", "is required for apply patch"));
            }
        }
        if (!errors.isEmpty()) {
            throw new ApiException(Statuses.invalid("meta.k8s.io", "PatchOptions", "", errors));
        }
    }

    /**
     * What kube-apiserver's apply checks in the configuration itself, with its wording (400 BadRequest): a YAML or
     * JSON object (its {@code yaml.Unmarshal} into a map), of exactly the request's apiVersion and kind (its field
     * manager's version check: {@code invalid object type: group/version, Kind=kind}, so a missing kind is refused
     * rather than guessed), naming the object of the URL (its {@code checkName} on the applied result: an existing
     * object keeps its name when the configuration has none, a new one takes the configuration's) in the URL's
     * namespace.
     */
    private static void checkApplyConfiguration(ResourceRequest request, JsonNode patch, boolean exists) {
        ResourceType type = request.type();
        RequestInfo info = request.info();
        if (!patch.isObject()) {
            String goType =
                    patch.isArray() ? "array" : patch.isString() ? "string" : patch.isBoolean() ? "bool" : "number";
            throw new ApiException(Statuses.badRequest("error decoding YAML: error unmarshaling JSON: while decoding "
                    + "JSON: json: cannot unmarshal " + goType + " into Go value of type map[string]interface {}"));
        }
        String apiVersion =
                patch.path("apiVersion").isString() ? patch.get("apiVersion").asString() : "";
        String kind = patch.path("kind").isString() ? patch.get("kind").asString() : "";
        if (!apiVersion.equals(type.gvk().apiVersion()) || !kind.equals(type.kind())) {
            int slash = apiVersion.indexOf('/');
            String group = slash < 0 ? "" : apiVersion.substring(0, slash);
            String version = slash < 0 ? apiVersion : apiVersion.substring(slash + 1);
            throw new ApiException(
                    Statuses.badRequest("invalid object type: " + group + "/" + version + ", Kind=" + kind));
        }
        JsonNode metadata = patch.path("metadata");
        String name = metadata.path("name").isString() ? metadata.get("name").asString() : "";
        if (!name.equals(info.name()) && !(name.isEmpty() && exists)) {
            throw new ApiException(Statuses.badRequest(
                    "the name of the object (" + name + ") does not match the name on the URL (" + info.name() + ")"));
        }
        String namespace = metadata.path("namespace").isString()
                ? metadata.get("namespace").asString()
                : "";
        if (type.namespaced() && !namespace.isEmpty() && !namespace.equals(info.namespace())) {
            throw new ApiException(Statuses.badRequest("the namespace of the object (" + namespace
                    + ") does not match the namespace on the request (" + info.namespace() + ")"));
        }
    }

    /** How kube words a bad patch result depends on the patch type. */
    private static Admission.PatchType admissionPatchType(Patches patchType) {
        return switch (patchType) {
            case JSON_PATCH -> Admission.PatchType.JSON;
            case MERGE_PATCH -> Admission.PatchType.MERGE;
            case STRATEGIC_MERGE_PATCH -> Admission.PatchType.STRATEGIC;
            case APPLY_PATCH -> Admission.PatchType.APPLY;
        };
    }

    /** PUT (patchType null) or PATCH of {@code /scale}: reads and writes {@code spec.replicas} as a Scale. */
    void scale(ResourceRequest request, Patches patchType) throws IOException {
        RequestInfo info = request.info();
        ResourceType type = request.type();
        WriteOptions options = request.writeOptions();
        JsonNode input = patchType == null
                ? readObject(request, "autoscaling/v1", "Scale", options)
                : bodies.json(RequestBody.read(request.exchange()), options);
        String manager = fieldManager(request, patchType == null ? "UpdateOptions" : "PatchOptions");
        io.kubeloop.apiserver.internal.crd.ScaleSubresource paths = extensions.scalePaths(type);
        ObjectNode stored = conditionalUpdate(request, manager, current -> {
            JsonNode desired = patchType == null
                    ? input
                    : patchType.apply(
                            type,
                            Scale.of(json, type, current, paths),
                            input,
                            request.param("fieldManager"),
                            clock.now());
            return new Desired(
                    desired,
                    ObjectRules.prepareUpdate(
                            type,
                            current,
                            Scale.withReplicas(current, Scale.replicas(type, info.name(), desired), paths),
                            false));
        });
        responses.object(request, 200, Scale.of(json, type, stored, paths));
    }

    void delete(ResourceRequest request) throws IOException {
        ResourceType type = request.type();
        DeleteOptions options = deleteOptions(request);
        if (!options.dryRun()) {
            extensions.deleting(type, request.info().name(), options.preconditions());
        }
        responses.object(request, 200, served.served(type, lifecycle.delete(type, request.key(), options)));
    }

    /**
     * The DeleteOptions of a DELETE, from its body (if any: JSON, or protobuf as Go typed clients send it) and its
     * query parameters. A protobuf body's apiVersion may be any group version, as client-go encodes DeleteOptions
     * in the version of the client that sends it.
     */
    private DeleteOptions deleteOptions(ResourceRequest request) throws IOException {
        HttpExchange exchange = request.exchange();
        ResourceType type = request.type();
        Map<String, String> q = request.query();
        byte[] body = RequestBody.read(exchange);
        if (body.length == 0) {
            return DeleteOptions.parse(null, q);
        }
        String contentType = request.header("Content-Type");
        if (contentType == null || !MediaType.parse(contentType).type().equals(Protobuf.MEDIA_TYPE)) {
            return DeleteOptions.parse(bodies.json(body, deleteBodyOptions(request)), q);
        }
        ObjectNode options = protobuf.decode(body, type.gvk().apiVersion(), type.kind(), exchange.getResponseHeaders());
        if (!options.path("kind").asString("").equals("DeleteOptions")) {
            throw new ApiException(Statuses.badRequest("decoded object cannot be converted to DeleteOptions"));
        }
        return DeleteOptions.parse(options, q);
    }

    /**
     * How a DeleteOptions body is decoded: leniently, as kube-apiserver decodes it (a delete has no
     * {@code fieldValidation}), its warnings to the response; its dry run is the DeleteOptions' own.
     */
    private static WriteOptions deleteBodyOptions(ResourceRequest request) {
        return new WriteOptions(
                FieldValidation.IGNORE,
                new Warnings(value -> request.exchange().getResponseHeaders().add("Warning", value)),
                false);
    }

    void deleteCollection(ResourceRequest request) throws IOException {
        ResourceType type = request.type();
        if (!type.verbs().contains("deletecollection")) {
            throw methodNotAllowed();
        }
        Predicate<ObjectNode> filter = QueryParameters.filter(request);
        DeleteOptions options = deleteOptions(request);
        ListResult result = store.list(type.group(), type.plural(), request.namespaceFilter(), 0, filter, 0, null);
        ObjectNode list = json.createObjectNode();
        list.put("kind", type.listKind());
        list.put("apiVersion", type.gvk().apiVersion());
        ObjectNode meta = list.putObject("metadata");
        ArrayNode items = list.putArray("items");
        long revision = result.revision();
        for (ObjectNode item : result.items()) {
            JsonNode m = item.get("metadata");
            StorageKey key = new StorageKey(
                    type.group(),
                    type.plural(),
                    m.path("namespace").asString(""),
                    m.get("name").asString());
            try {
                if (!options.dryRun()) {
                    extensions.deleting(type, key.name(), options.preconditions());
                }
                ObjectNode deleted = lifecycle.delete(type, key, options);
                revision = Math.max(
                        revision,
                        deleted.path("metadata").path("resourceVersion").asLong());
                items.add(served.served(type, deleted));
            } catch (io.kubeloop.apiserver.internal.storage.NotFoundException alreadyGone) {
                // deleted concurrently: nothing to do
            }
        }
        meta.put("resourceVersion", Long.toString(revision));
        responses.object(request, 200, list);
    }

    // ---- helpers

    /**
     * The manager of a write: the {@code fieldManager} parameter, else derived from the User-Agent; 422 for an
     * invalid one, as {@code <options>.meta.k8s.io "" is invalid: fieldManager: ...}.
     */
    private static String fieldManager(ResourceRequest request, String options) {
        String error = ManagedFields.validateManager(request.param("fieldManager"));
        if (error != null) {
            int colon = error.indexOf(": ");
            throw new ApiException(Statuses.invalid(
                    "meta.k8s.io",
                    options,
                    "",
                    java.util.List.of(new Statuses.FieldError(
                            error.substring(0, colon), "fieldManager", error.substring(colon + 2)))));
        }
        return ManagedFields.managerOf(request.param("fieldManager"), request.header("User-Agent"));
    }

    private static PatchSchema schema(ResourceType type) {
        return PatchSchema.forKind(type.group(), type.version(), type.kind());
    }

    private boolean exists(StorageKey key) {
        try {
            store.get(key);
            return true;
        } catch (io.kubeloop.apiserver.internal.storage.NotFoundException e) {
            return false;
        }
    }

    /** A namespace in the body must be the one in the URL (400 otherwise, as kube-apiserver answers). */
    private static void requireSameNamespace(ResourceRequest request, ObjectNode object) {
        String bodyNamespace = object.path("metadata").path("namespace").asString("");
        if (request.type().namespaced()
                && !bodyNamespace.isEmpty()
                && !bodyNamespace.equals(request.info().namespace())) {
            throw new ApiException(Statuses.badRequest(
                    "the namespace of the provided object does not match the namespace sent on the request"));
        }
    }

    private void requireNamespace(String namespace) {
        if (!exists(StorageKey.clusterScoped("", "namespaces", namespace))) {
            throw new ApiException(Statuses.notFound("", "namespaces", namespace));
        }
    }

    private ObjectNode readObject(ResourceRequest request, WriteOptions options) throws IOException {
        return readObject(
                request, request.type().gvk().apiVersion(), request.type().kind(), options);
    }

    /**
     * The object of a create or update body, or the Scale of a {@code /scale} PUT, as JSON: the body is JSON (also
     * when Content-Type is absent, as kubectl's {@code scale --current-replicas} sends it), YAML or protobuf.
     * Whatever the encoding, the same checks follow: an object whose apiVersion and kind, when set, are
     * {@code apiVersion} and {@code kind}.
     */
    private ObjectNode readObject(ResourceRequest request, String apiVersion, String kind, WriteOptions options)
            throws IOException {
        HttpExchange exchange = request.exchange();
        String contentType = request.header("Content-Type");
        String mediaType = contentType == null || contentType.isBlank()
                ? "application/json"
                : MediaType.parse(contentType).type();
        JsonNode node =
                switch (mediaType) {
                    case "application/json", "*/*" -> bodies.json(RequestBody.read(exchange), options);
                    case "application/yaml" -> bodies.yaml(RequestBody.read(exchange), options);
                    case Protobuf.MEDIA_TYPE ->
                        protobuf.decode(RequestBody.read(exchange), apiVersion, kind, exchange.getResponseHeaders());
                    default -> throw new ApiException(protobuf.unknownFormat(apiVersion, kind));
                };
        if (!node.isObject()) {
            throw new ApiException(Statuses.badRequest("the body of the request must be a JSON object"));
        }
        ObjectNode object = (ObjectNode) node;
        String sentApiVersion = object.path("apiVersion").asString("");
        String sentKind = object.path("kind").asString("");
        if ((!sentApiVersion.isEmpty() && !sentApiVersion.equals(apiVersion))
                || (!sentKind.isEmpty() && !sentKind.equals(kind))) {
            throw new ApiException(Statuses.badRequest("the API version in the data (" + sentApiVersion + ") does not "
                    + "match the expected API version (" + apiVersion + ")"));
        }
        return object;
    }

    /** Carries a dry-run update's result out of {@code guaranteedUpdate} without storing it. */
    static final class DryRunResult extends RuntimeException {
        private static final long serialVersionUID = 1L;

        final ObjectNode object;

        DryRunResult(ObjectNode object) {
            super(null, null, false, false);
            this.object = object;
        }
    }
}
