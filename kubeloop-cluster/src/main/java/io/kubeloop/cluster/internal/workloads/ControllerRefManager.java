package io.kubeloop.cluster.internal.workloads;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.kubeloop.client.errors.InvalidException;
import io.kubeloop.client.errors.NotFoundException;
import io.kubeloop.client.resource.PatchType;
import io.kubeloop.controller.ControllerClient;
import io.kubeloop.controller.OwnerReferences;
import io.kubeloop.model.selector.LabelSelector;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * kube's {@code BaseControllerRefManager.ClaimObject} (controller_ref_manager.go) for one controller object: which of
 * the candidate objects it controls, adopting the orphans its selector matches and releasing the ones it controls
 * that no longer match.
 *
 * <p>Rules, exactly kube's:
 * <ul>
 *   <li>controlled by another object (a controller reference with another uid): ignored;</li>
 *   <li>controlled by this one and matching: claimed;</li>
 *   <li>controlled by this one and not matching: released (its reference removed by a JSON patch guarded by tests
 *       of the object's and the reference's uid) — unless the controller is being deleted;
 *       a release that finds the object gone (404) or changed (422) is not an error;</li>
 *   <li>an orphan that matches, is not being deleted, is in the controller's namespace, while the controller is not
 *       being deleted: adopted (a controller reference with {@code blockOwnerDeletion} added by a strategic merge
 *       patch carrying the object's uid), after {@code canAdopt} — kube's {@code RecheckDeletionTimestamp}, a fresh
 *       read of the controller from the API server, done at most once per claim — confirmed the controller is not
 *       being deleted; an adoption that finds the object gone is not an error.</li>
 * </ul>
 * Errors of single objects do not stop the others; they are thrown together at the end, after what could be claimed
 * was claimed (kube aggregates them). The candidates may be the cache's objects: they are never changed.
 *
 * @param <O> the type of the claimed objects
 */
public final class ControllerRefManager<O extends HasMetadata> {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final ControllerClient client;
    private final HasMetadata controller;
    private final LabelSelector selector;
    private final Supplier<String> canAdopt;
    private String adoptRefusal;
    private boolean adoptChecked;

    /**
     * @param controller the controlling object (uid, namespace and deletionTimestamp are read)
     * @param canAdopt a fresh check that the controller may adopt: returns null when it may, else why not
     */
    public ControllerRefManager(
            ControllerClient client, HasMetadata controller, LabelSelector selector, Supplier<String> canAdopt) {
        this.client = Objects.requireNonNull(client, "client");
        this.controller = Objects.requireNonNull(controller, "controller");
        this.selector = Objects.requireNonNull(selector, "selector");
        this.canAdopt = Objects.requireNonNull(canAdopt, "canAdopt");
    }

    /**
     * The candidates this controller controls after adoption and release.
     *
     * @throws ClaimException some adoptions or releases failed (the message lists them); nothing is returned then,
     *     as in kube, whose sync stops on a claim error and retries
     */
    public List<O> claim(List<O> candidates) {
        List<O> claimed = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        String uid = controller.getMetadata().getUid();
        boolean controllerDeleting = controller.getMetadata().getDeletionTimestamp() != null;
        for (O object : candidates) {
            OwnerReference ref = OwnerReferences.controllerOf(object).orElse(null);
            boolean matches = selector.matches(labels(object));
            if (ref != null) {
                if (!uid.equals(ref.getUid())) {
                    continue; // someone else's
                }
                if (matches) {
                    claimed.add(object);
                    continue;
                }
                if (controllerDeleting) {
                    continue;
                }
                try {
                    release(object);
                } catch (NotFoundException | InvalidException gone) {
                    // gone, or recreated under the same name (uid mismatch), or the reference already removed
                } catch (RuntimeException e) {
                    errors.add("release " + name(object) + ": " + e.getMessage());
                }
                continue;
            }
            if (controllerDeleting || !matches || object.getMetadata().getDeletionTimestamp() != null) {
                continue;
            }
            String ns = controller.getMetadata().getNamespace();
            if (ns != null && !ns.isEmpty() && !ns.equals(object.getMetadata().getNamespace())) {
                continue;
            }
            try {
                String refusal = adoptRefusal();
                if (refusal != null) {
                    errors.add("can't adopt " + object.getKind() + " " + name(object) + " ("
                            + object.getMetadata().getUid() + "): " + refusal);
                    continue;
                }
                claimed.add(adopt(object));
            } catch (NotFoundException gone) {
                // deleted meanwhile
            } catch (RuntimeException e) {
                errors.add("adopt " + name(object) + ": " + e.getMessage());
            }
        }
        if (!errors.isEmpty()) {
            throw new ClaimException(String.join("; ", errors));
        }
        return claimed;
    }

    private String adoptRefusal() {
        if (!adoptChecked) {
            adoptRefusal = canAdopt.get();
            adoptChecked = true;
        }
        return adoptRefusal;
    }

    private O adopt(O object) {
        ObjectNode patch = JSON.createObjectNode();
        ObjectNode meta = patch.putObject("metadata");
        ObjectNode ref = meta.putArray("ownerReferences").addObject();
        ref.put("apiVersion", apiVersion(controller));
        ref.put("kind", kind(controller));
        ref.put("name", controller.getMetadata().getName());
        ref.put("uid", controller.getMetadata().getUid());
        ref.put("controller", true);
        ref.put("blockOwnerDeletion", true);
        meta.put("uid", object.getMetadata().getUid());
        return client.patch(object, PatchType.STRATEGIC, JSON.writeValueAsString(patch));
    }

    /**
     * Removes this controller's reference with a JSON patch that first tests the object's uid and the reference's
     * uid at its index (kube sends a strategic merge patch {@code {"$patch":"delete","uid":…}}; the test operations
     * give the same guarantee — a recreated object or a moved reference fails with 422 — without relying on the
     * server's handling of list directives).
     */
    private void release(O object) {
        List<OwnerReference> refs = object.getMetadata().getOwnerReferences();
        String ownerUid = controller.getMetadata().getUid();
        int index = -1;
        for (int i = 0; refs != null && i < refs.size(); i++) {
            if (ownerUid.equals(refs.get(i).getUid())) {
                index = i;
                break;
            }
        }
        if (index < 0) {
            return;
        }
        ArrayNode patch = JSON.createArrayNode();
        patch.addObject()
                .put("op", "test")
                .put("path", "/metadata/uid")
                .put("value", object.getMetadata().getUid());
        patch.addObject()
                .put("op", "test")
                .put("path", "/metadata/ownerReferences/" + index + "/uid")
                .put("value", ownerUid);
        patch.addObject().put("op", "remove").put("path", "/metadata/ownerReferences/" + index);
        client.patch(object, PatchType.JSON, JSON.writeValueAsString(patch));
    }

    private static java.util.Map<String, String> labels(HasMetadata o) {
        var l = o.getMetadata().getLabels();
        return l == null ? java.util.Map.of() : l;
    }

    private static String name(HasMetadata o) {
        return o.getMetadata().getNamespace() + "/" + o.getMetadata().getName();
    }

    private static String kind(HasMetadata o) {
        return o.getKind() != null ? o.getKind() : HasMetadata.getKind(o.getClass());
    }

    private static String apiVersion(HasMetadata o) {
        return o.getApiVersion() != null ? o.getApiVersion() : HasMetadata.getApiVersion(o.getClass());
    }

    /** Some adoptions or releases of one claim failed; the reconcile fails and is retried. */
    public static final class ClaimException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ClaimException(String message) {
            super(message);
        }
    }
}
