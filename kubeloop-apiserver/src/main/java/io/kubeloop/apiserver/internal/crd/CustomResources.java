package io.kubeloop.apiserver.internal.crd;

import io.kubeloop.apiserver.internal.storage.NotFoundException;
import io.kubeloop.apiserver.internal.storage.Preconditions;
import io.kubeloop.apiserver.internal.storage.StorageKey;
import io.kubeloop.apiserver.internal.storage.Store;
import io.kubeloop.apiserver.internal.table.PrinterColumn;
import io.kubeloop.clock.Clock;
import io.kubeloop.model.GroupVersionResource;
import io.kubeloop.model.ResourceRegistry;
import io.kubeloop.model.ResourceType;
import io.kubeloop.model.StatusReason;
import io.kubeloop.model.Statuses;
import io.kubeloop.model.Statuses.FieldError;
import io.kubeloop.model.Timestamps;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The apiextensions side of the embedded API server: what makes a stored CustomResourceDefinition a served
 * resource. The HTTP layer calls it around writes:
 *
 * <ul>
 *   <li>{@link #admit} before a write is stored: a CRD is validated and gets its status (acceptedNames,
 *       storedVersions, conditions NamesAccepted and Established); a custom resource is pruned, defaulted and
 *       validated against its version's structural schema.</li>
 *   <li>{@link #written} after a CRD write is stored: its served versions enter the registry at once.</li>
 *   <li>{@link #deleting} before a CRD is deleted: its objects are deleted (watchers see DELETED) and its
 *       resource leaves the registry, as kube's {@code customresourcecleanup.apiextensions.k8s.io} finalizer
 *       does.</li>
 * </ul>
 *
 * <p>Invariants: the registry's custom resources are exactly the served versions of the stored CRDs whose
 * names were accepted; registration changes happen under one lock and are read from the stored CRD, so
 * concurrent CRD writes converge on the last stored state. {@code versions} (read lock-free by every request)
 * and the registry are each replaced whole: a new version enters {@code versions} before the registry, a
 * removed one leaves the registry first; only a request racing with a change of its own version can see the
 * registry and {@code versions} disagree, and it is then served as the CRD was before the change.
 */
public final class CustomResources {

    /** The CustomResourceDefinition resource itself. */
    public static final String GROUP = "apiextensions.k8s.io";

    public static final String PLURAL = "customresourcedefinitions";

    private static final Logger log = LoggerFactory.getLogger(CustomResources.class);

    private final JsonMapper json;
    private final Store store;
    private final Clock clock;
    private final AtomicReference<ResourceRegistry> registry;
    private final ResourceRegistry builtIn;
    private final ReentrantLock lock = new ReentrantLock();

    /** What each served custom resource version enforces and prints; replaced whole, under {@link #lock}. */
    private volatile Map<GroupVersionResource, Definition.Version> versions = Map.of();
    /** The definitions currently served, by CRD name; guarded by {@link #lock}. */
    private final Map<String, Definition> served = new HashMap<>();
    /** {@code group/plural} of resources whose CRD is being deleted: no creates. */
    private final Set<String> terminating = ConcurrentHashMap.newKeySet();

    public CustomResources(JsonMapper json, Store store, Clock clock, AtomicReference<ResourceRegistry> registry) {
        this.json = Objects.requireNonNull(json, "json");
        this.store = Objects.requireNonNull(store, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.registry = Objects.requireNonNull(registry, "registry");
        this.builtIn = registry.get();
    }

    /** Whether {@code type} is a served custom resource version. */
    public boolean isCustom(ResourceType type) {
        return versions.containsKey(type.gvr());
    }

    /** The printer columns of a custom resource version (empty: none declared), or null for other types. */
    public List<PrinterColumn> printerColumns(ResourceType type) {
        Definition.Version v = versions.get(type.gvr());
        return v == null ? null : v.columns();
    }

    /** Where a custom resource version keeps its scale, or null for other types. */
    public ScaleSubresource scale(ResourceType type) {
        Definition.Version v = versions.get(type.gvr());
        return v == null ? null : v.scale();
    }

    /**
     * The OpenAPI v3 component schema of a custom resource version (its {@code openAPIV3Schema} with
     * apiVersion, kind, metadata and {@code x-kubernetes-group-version-kind}), or null for other types.
     */
    public ObjectNode openApiSchema(ResourceType type) {
        Definition.Version v = versions.get(type.gvr());
        if (v == null) {
            return null;
        }
        ObjectNode schema = (ObjectNode) v.schema().root().deepCopy();
        ObjectNode properties =
                schema.has("properties") ? (ObjectNode) schema.get("properties") : schema.putObject("properties");
        properties
                .putObject("apiVersion")
                .put("type", "string")
                .put("description", "APIVersion defines the versioned schema of this representation of an object.");
        properties
                .putObject("kind")
                .put("type", "string")
                .put("description", "Kind is a string value representing the REST resource this object represents.");
        properties.putObject("metadata").put("type", "object").put("description", "Standard object's metadata.");
        ObjectNode gvk = schema.putArray("x-kubernetes-group-version-kind").addObject();
        gvk.put("group", type.group());
        gvk.put("kind", type.kind());
        gvk.put("version", type.version());
        return schema;
    }

    /** The OpenAPI component name kube gives a kind: {@code com.example.v1.Widget} for example.com/v1. */
    public static String openApiName(ResourceType type) {
        List<String> parts = new ArrayList<>(List.of(type.group().split("\\.")));
        java.util.Collections.reverse(parts);
        return String.join(".", parts) + "." + type.version() + "." + type.kind();
    }

    /**
     * Checks and completes {@code next}, the object a write is about to store ({@code current} is the stored
     * one, null on create; {@code subresource} is "", "status" or "scale"; {@code fieldValidation} the request's
     * parameter). Returns the object to store; throws {@link RejectedException} with a 422
     * Invalid listing every problem, a 400 for unknown fields under {@code fieldValidation=Strict} (kubectl's
     * default), or a 405 for a create while the resource's CRD is being deleted.
     */
    public ObjectNode admit(
            ResourceType type,
            ObjectNode current,
            ObjectNode next,
            String subresource,
            io.kubeloop.apiserver.internal.registry.FieldValidation fieldValidation) {
        return admit(type, current, next, subresource, fieldValidation, null);
    }

    /**
     * {@link #admit(ResourceType, ObjectNode, ObjectNode, String,
     * io.kubeloop.apiserver.internal.registry.FieldValidation) admit}, with each pruned unknown field also sent to
     * {@code warnings} under {@code fieldValidation=Warn} ({@code unknown field "spec.foo"}, kube's wording).
     */
    public ObjectNode admit(
            ResourceType type,
            ObjectNode current,
            ObjectNode next,
            String subresource,
            io.kubeloop.apiserver.internal.registry.FieldValidation fieldValidation,
            io.kubeloop.apiserver.internal.registry.Warnings warnings) {
        if (isDefinitions(type)) {
            return admitDefinition(current, next);
        }
        Definition.Version v = versions.get(type.gvr());
        if (v == null) {
            return next;
        }
        if (current == null && terminating.contains(type.group() + "/" + type.plural())) {
            throw new RejectedException(Statuses.failure(
                    StatusReason.MethodNotAllowed,
                    "create not allowed while custom resource definition is terminating"));
        }
        List<String> unknown = v.schema().prune(next);
        if (fieldValidation == io.kubeloop.apiserver.internal.registry.FieldValidation.STRICT && !unknown.isEmpty()) {
            throw new RejectedException(Statuses.badRequest(type.kind() + " in version \"" + type.version()
                    + "\" cannot be handled as a " + type.kind() + ": strict decoding error: "
                    + String.join(
                            ", ",
                            unknown.stream()
                                    .map(f -> "unknown field \"" + f + "\"")
                                    .toList())));
        }
        if (warnings != null && fieldValidation == io.kubeloop.apiserver.internal.registry.FieldValidation.WARN) {
            unknown.forEach(f -> warnings.add("unknown field \"" + f + "\""));
        }
        List<FieldError> errors = v.schema().validate(next);
        if (!errors.isEmpty()) {
            throw new RejectedException(Statuses.invalid(
                    type.group(),
                    type.kind(),
                    next.path("metadata").path("name").asString(""),
                    errors));
        }
        if (current != null && subresource.isEmpty() && next.get("metadata") instanceof ObjectNode meta) {
            // kube bumps a custom resource's generation for any change outside metadata and status
            long generation = current.path("metadata").path("generation").asLong(1);
            meta.put("generation", changedOutsideMetadataAndStatus(current, next) ? generation + 1 : generation);
        }
        return next;
    }

    private static boolean changedOutsideMetadataAndStatus(ObjectNode current, ObjectNode next) {
        Set<String> names = new LinkedHashSet<>(current.propertyNames());
        names.addAll(next.propertyNames());
        for (String name : names) {
            if (!name.equals("metadata")
                    && !name.equals("status")
                    && !name.equals("apiVersion")
                    && !java.util.Objects.equals(current.get(name), next.get(name))) {
                return true;
            }
        }
        return false;
    }

    /** After a CRD write is stored: serve what the stored definition now says. */
    public void written(ResourceType type, ObjectNode stored) {
        if (isDefinitions(type)) {
            refresh(stored.path("metadata").path("name").asString());
        }
    }

    /**
     * Before the CRD {@code name} is deleted with {@code preconditions}: refuses new objects, deletes every
     * object of its resource (each a DELETED event for watchers) and stops serving it. Open watches on it end
     * within a second. Nothing happens when the preconditions do not hold (the delete then fails with 409).
     */
    public void deleting(ResourceType type, String name, Preconditions preconditions) {
        if (!isDefinitions(type)) {
            return;
        }
        lock.lock();
        try {
            Definition d = served.get(name);
            if (d == null || !holds(name, preconditions)) {
                return;
            }
            String groupPlural = d.group() + "/" + d.names().plural();
            terminating.add(groupPlural);
            try {
                deleteAll(d);
                unserve(name);
                deleteAll(d); // a create admitted just before terminating began
            } finally {
                terminating.remove(groupPlural);
            }
        } finally {
            lock.unlock();
        }
    }

    private boolean holds(String name, Preconditions preconditions) {
        JsonNode meta;
        try {
            meta = store.get(StorageKey.clusterScoped(GROUP, PLURAL, name)).path("metadata");
        } catch (NotFoundException gone) {
            return false;
        }
        return (preconditions.uid() == null
                        || preconditions.uid().equals(meta.path("uid").asString("")))
                && (preconditions.resourceVersion() == null
                        || preconditions
                                .resourceVersion()
                                .equals(meta.path("resourceVersion").asString("")));
    }

    private void deleteAll(Definition d) {
        for (ObjectNode item : store.list(d.group(), d.names().plural(), null, 0, null, 0, null)
                .items()) {
            JsonNode meta = item.get("metadata");
            try {
                store.delete(
                        new StorageKey(
                                d.group(),
                                d.names().plural(),
                                meta.path("namespace").asString(""),
                                meta.get("name").asString()),
                        Preconditions.NONE);
            } catch (NotFoundException alreadyGone) {
                // deleted concurrently
            }
        }
    }

    private static boolean isDefinitions(ResourceType type) {
        return type.group().equals(GROUP) && type.plural().equals(PLURAL);
    }

    // ---- definitions

    private ObjectNode admitDefinition(ObjectNode current, ObjectNode next) {
        List<FieldError> errors = new ArrayList<>();
        Definition d = Definition.parse(next, errors);
        String name = next.path("metadata").path("name").asString("");
        if (d != null && current != null) {
            String was = current.path("spec").path("scope").asString("");
            String now = next.path("spec").path("scope").asString("");
            if (!was.equals(now)) {
                errors.add(new FieldError(
                        "Invalid value", "spec.scope", StructuralSchema.quote(now) + ": field is immutable"));
            }
        }
        if (!errors.isEmpty()) {
            throw new RejectedException(Statuses.invalid(GROUP, "CustomResourceDefinition", name, errors));
        }
        ObjectNode spec = (ObjectNode) next.get("spec");
        ObjectNode names = (ObjectNode) spec.get("names");
        names.put("singular", d.names().singular());
        names.put("listKind", d.names().listKind());
        if (!spec.has("conversion")) {
            spec.putObject("conversion").put("strategy", "None");
        }
        next.set("status", status(current, d, conflict(d)));
        return next;
    }

    /** Why the names of {@code d} cannot be served (a name another resource in its group uses), or null. */
    private String conflict(Definition d) {
        Set<String> wanted = new LinkedHashSet<>();
        wanted.add(d.names().plural());
        wanted.add(d.names().singular());
        d.names().shortNames().forEach(s -> wanted.add(s.toLowerCase(Locale.ROOT)));
        for (ResourceType t : registry.get().types()) {
            if (!t.group().equals(d.group())
                    || t.plural().equals(d.names().plural()) && !builtIn.types().contains(t)) {
                continue; // another group, or this CRD's own resource
            }
            for (String n : wanted) {
                if (t.plural().equals(n)
                        || t.singular().equals(n)
                        || t.shortNames().contains(n)) {
                    return "\"" + n + "\" is already in use";
                }
            }
            if (t.kind().equals(d.names().kind())
                    || t.listKind().equals(d.names().listKind())) {
                return "\"" + d.names().kind() + "\" is already in use";
            }
        }
        return null;
    }

    private ObjectNode status(ObjectNode current, Definition d, String conflict) {
        JsonNode old = current == null ? json.createObjectNode() : current.path("status");
        ObjectNode status = json.createObjectNode();
        ObjectNode accepted = status.putObject("acceptedNames");
        if (conflict == null) {
            accepted.put("plural", d.names().plural());
            accepted.put("singular", d.names().singular());
            accepted.put("kind", d.names().kind());
            accepted.put("listKind", d.names().listKind());
            if (!d.names().shortNames().isEmpty()) {
                d.names().shortNames().forEach(accepted.putArray("shortNames")::add);
            }
            if (!d.names().categories().isEmpty()) {
                d.names().categories().forEach(accepted.putArray("categories")::add);
            }
        } else {
            accepted.put("plural", "");
            accepted.put("kind", "");
        }
        ArrayNode conditions = status.putArray("conditions");
        conditions.add(condition(
                old,
                "NamesAccepted",
                conflict == null,
                conflict == null ? "NoConflicts" : "NameConflict",
                conflict == null ? "no conflicts found" : conflict));
        conditions.add(condition(
                old,
                "Established",
                conflict == null,
                conflict == null ? "InitialNamesAccepted" : "NotAccepted",
                conflict == null ? "the initial names have been accepted" : "not all names are accepted"));
        Set<String> stored = new LinkedHashSet<>();
        old.path("storedVersions").forEach(v -> stored.add(v.asString()));
        stored.add(d.storageVersion());
        stored.forEach(status.putArray("storedVersions")::add);
        return status;
    }

    /** A condition, keeping its lastTransitionTime when its status did not change. */
    private ObjectNode condition(JsonNode oldStatus, String type, boolean ok, String reason, String message) {
        String status = ok ? "True" : "False";
        String since = Timestamps.format(clock.now());
        for (JsonNode c : oldStatus.path("conditions")) {
            if (c.path("type").asString("").equals(type)
                    && c.path("status").asString("").equals(status)) {
                since = c.path("lastTransitionTime").asString(since);
            }
        }
        ObjectNode c = json.createObjectNode();
        c.put("type", type);
        c.put("status", status);
        c.put("lastTransitionTime", since);
        c.put("reason", reason);
        c.put("message", message);
        return c;
    }

    /** Serves the CRD {@code name} as now stored (or stops serving it when it is gone or not accepted). */
    private void refresh(String name) {
        lock.lock();
        try {
            ObjectNode stored;
            try {
                stored = store.get(StorageKey.clusterScoped(GROUP, PLURAL, name));
            } catch (NotFoundException gone) {
                unserve(name);
                return;
            }
            Definition d = Definition.parse(stored, new ArrayList<>());
            boolean accepted = false;
            for (JsonNode c : stored.path("status").path("conditions")) {
                if (c.path("type").asString("").equals("NamesAccepted")) {
                    accepted = c.path("status").asString("").equals("True");
                }
            }
            if (d == null || !accepted) {
                return; // kube keeps serving what it served under names it had accepted before
            }
            Definition previous = served.get(name);
            ResourceRegistry updated;
            try {
                ResourceRegistry reg = registry.get();
                updated = (previous == null
                                ? reg
                                : reg.without(previous.group(), previous.names().plural()))
                        .withVersions(d.servedTypes());
            } catch (IllegalArgumentException clash) {
                // a concurrent CRD took one of its kinds between admission and now: keep serving what was served
                log.warn("custom resource definition {} is not served: {}", name, clash.getMessage());
                return;
            }
            Map<GroupVersionResource, Definition.Version> next = new HashMap<>(versions);
            if (previous != null) {
                next.keySet()
                        .removeIf(gvr -> gvr.group().equals(previous.group())
                                && gvr.resource().equals(previous.names().plural()));
            }
            for (Definition.Version v : d.versions()) {
                if (v.served()) {
                    next.put(
                            new GroupVersionResource(
                                    d.group(), v.name(), d.names().plural()),
                            v);
                }
            }
            served.put(name, d);
            versions = Map.copyOf(next);
            registry.set(updated); // registry changes only happen under the lock
        } finally {
            lock.unlock();
        }
    }

    /** Stops serving the CRD {@code name}; call under {@link #lock}. */
    private void unserve(String name) {
        Definition d = served.remove(name);
        if (d == null) {
            return;
        }
        registry.updateAndGet(reg -> reg.without(d.group(), d.names().plural()));
        Map<GroupVersionResource, Definition.Version> next = new HashMap<>(versions);
        next.keySet()
                .removeIf(gvr -> gvr.group().equals(d.group())
                        && gvr.resource().equals(d.names().plural()));
        versions = Map.copyOf(next);
    }
}
