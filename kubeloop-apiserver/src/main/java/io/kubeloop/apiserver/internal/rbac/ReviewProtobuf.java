package io.kubeloop.apiserver.internal.rbac;

import io.kubeloop.apiserver.internal.protobuf.WireReader;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Decodes the review kinds' protobuf messages (the {@code raw} of the envelope) into their JSON form, so
 * that a review is evaluated the same way whichever encoding the client chose. Field numbers are those of
 * k8s.io/api authorization/v1 and authentication/v1 {@code generated.proto}:
 *
 * <pre>
 * SelfSubjectAccessReview / SubjectAccessReview { ObjectMeta metadata = 1; spec = 2; status = 3; }
 * SelfSubjectAccessReviewSpec { ResourceAttributes resourceAttributes = 1; NonResourceAttributes nonResourceAttributes = 2; }
 * SubjectAccessReviewSpec { resourceAttributes = 1; nonResourceAttributes = 2; string user = 3;
 *                           repeated string groups = 4; map&lt;string, ExtraValue&gt; extra = 5; string uid = 6; }
 * ResourceAttributes { namespace = 1; verb = 2; group = 3; version = 4; resource = 5; subresource = 6; name = 7; }
 * NonResourceAttributes { path = 1; verb = 2; }     ExtraValue { repeated string items = 1; }
 * SelfSubjectRulesReview { ObjectMeta metadata = 1; SelfSubjectRulesReviewSpec spec = 2; status = 3; }
 * SelfSubjectRulesReviewSpec { string namespace = 1; }
 * SelfSubjectReview { ObjectMeta metadata = 1; status = 2; }     ObjectMeta { name = 1; generateName = 2; namespace = 3; }
 * </pre>
 *
 * <p>Fields not listed (status, the selector fields of ResourceAttributes, the rest of ObjectMeta) are
 * skipped. Malformed input throws {@link io.kubeloop.apiserver.internal.protobuf.ProtobufException}.
 */
final class ReviewProtobuf {

    private final JsonMapper json;

    ReviewProtobuf(JsonMapper json) {
        this.json = json;
    }

    /** The review's JSON form without apiVersion and kind; {@code kind} selects the message layout. */
    ObjectNode decode(String kind, byte[] raw) {
        ObjectNode review = json.createObjectNode();
        ObjectNode metadata = review.putObject("metadata");
        WireReader r = new WireReader(raw);
        while (r.next()) {
            switch (r.fieldNumber()) {
                case 1 -> objectMeta(r.readMessage(), metadata);
                case 2 -> {
                    switch (kind) {
                        case Reviews.SELF_SUBJECT_REVIEW -> r.skip(); // the status, which the server computes
                        case Reviews.SELF_SUBJECT_RULES_REVIEW ->
                            review.set("spec", strings(r.readMessage(), "namespace"));
                        default -> review.set("spec", accessReviewSpec(r.readMessage()));
                    }
                }
                default -> r.skip();
            }
        }
        return review;
    }

    private static void objectMeta(WireReader r, ObjectNode metadata) {
        while (r.next()) {
            switch (r.fieldNumber()) {
                case 1 -> metadata.put("name", r.readString());
                case 2 -> metadata.put("generateName", r.readString());
                case 3 -> metadata.put("namespace", r.readString());
                default -> r.skip();
            }
        }
    }

    private ObjectNode accessReviewSpec(WireReader r) {
        ObjectNode spec = json.createObjectNode();
        while (r.next()) {
            switch (r.fieldNumber()) {
                case 1 ->
                    spec.set(
                            "resourceAttributes",
                            strings(
                                    r.readMessage(),
                                    "namespace",
                                    "verb",
                                    "group",
                                    "version",
                                    "resource",
                                    "subresource",
                                    "name"));
                case 2 -> spec.set("nonResourceAttributes", strings(r.readMessage(), "path", "verb"));
                case 3 -> spec.put("user", r.readString());
                case 4 -> {
                    ArrayNode groups = spec.has("groups") ? (ArrayNode) spec.get("groups") : spec.putArray("groups");
                    groups.add(r.readString());
                }
                case 5 -> extraEntry(r.readMessage(), spec);
                case 6 -> spec.put("uid", r.readString());
                default -> r.skip();
            }
        }
        return spec;
    }

    /** One {@code map<string, ExtraValue>} entry: key = 1, value = 2. */
    private void extraEntry(WireReader entry, ObjectNode spec) {
        String key = "";
        ArrayNode items = json.createArrayNode();
        while (entry.next()) {
            switch (entry.fieldNumber()) {
                case 1 -> key = entry.readString();
                case 2 -> {
                    WireReader value = entry.readMessage();
                    while (value.next()) {
                        if (value.fieldNumber() == 1) {
                            items.add(value.readString());
                        } else {
                            value.skip();
                        }
                    }
                }
                default -> entry.skip();
            }
        }
        ObjectNode extra = spec.has("extra") ? (ObjectNode) spec.get("extra") : spec.putObject("extra");
        extra.set(key, items);
    }

    /** A message of string fields numbered 1.. in the order of {@code names}; others are skipped. */
    private ObjectNode strings(WireReader r, String... names) {
        ObjectNode out = json.createObjectNode();
        while (r.next()) {
            int n = r.fieldNumber();
            if (n >= 1 && n <= names.length) {
                out.put(names[n - 1], r.readString());
            } else {
                r.skip();
            }
        }
        return out;
    }
}
