package io.kubeloop.client.resource;

import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON merge patch (RFC 7386) that turns one object into another: applied to {@code before} it yields
 * {@code after}. Members of {@code after} that are new or different are in the patch (objects recursively, every
 * other value, lists included, whole); members of {@code before} missing from {@code after} are {@code null}.
 * A merge patch cannot set a member to JSON {@code null} (that deletes it), which fabric8's model never writes.
 *
 * <pre>{@code
 * JsonMapper json = Decoding.standard().mapper();
 * ObjectNode patch = MergePatches.diff(json.valueToTree(before), json.valueToTree(after));
 * configMaps.patch("settings", PatchType.MERGE, json.writeValueAsString(patch), PatchOptions.none());
 * }</pre>
 */
public final class MergePatches {

    private MergePatches() {}

    /** The merge patch from {@code before} to {@code after}; empty when they are equal. Neither is changed. */
    public static ObjectNode diff(ObjectNode before, ObjectNode after) {
        ObjectNode patch = JsonNodeFactory.instance.objectNode();
        for (Map.Entry<String, JsonNode> member : after.properties()) {
            JsonNode old = before.get(member.getKey());
            JsonNode now = member.getValue();
            if (old == null || !old.equals(now)) {
                patch.set(
                        member.getKey(), old instanceof ObjectNode o && now instanceof ObjectNode n ? diff(o, n) : now);
            }
        }
        for (String name : before.propertyNames()) {
            if (!after.has(name)) {
                patch.putNull(name);
            }
        }
        return patch;
    }
}
