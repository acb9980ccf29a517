package io.kubeloop.apiserver.internal.rbac;

import io.kubeloop.apiserver.internal.auth.UserInfo;
import io.kubeloop.apiserver.internal.protobuf.Envelope;
import io.kubeloop.apiserver.internal.protobuf.ProtobufCodec;
import io.kubeloop.apiserver.internal.protobuf.ProtobufException;
import io.kubeloop.apiserver.internal.protobuf.ProtobufSupport;
import io.kubeloop.model.ResourceType;
import io.kubeloop.model.StatusReason;
import io.kubeloop.model.Statuses;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The create-only review kinds, answered 201 and never stored:
 *
 * <ul>
 *   <li>authorization.k8s.io/v1 {@code SelfSubjectAccessReview}: may the requesting user do this
 *       ({@code spec.resourceAttributes} or {@code spec.nonResourceAttributes})? ({@code kubectl auth can-i})
 *   <li>authorization.k8s.io/v1 {@code SubjectAccessReview}: may {@code spec.user}/{@code groups}/{@code uid}/
 *       {@code extra} do this? (who may ask is up to RBAC: create on subjectaccessreviews)
 *   <li>authorization.k8s.io/v1 {@code SelfSubjectRulesReview}: what may I do in {@code spec.namespace}?
 *       ({@code kubectl auth can-i --list})
 *   <li>authentication.k8s.io/v1 {@code SelfSubjectReview}: who am I? ({@code kubectl auth whoami})
 * </ul>
 *
 * <p>Bodies are JSON, YAML, or protobuf as client-go sends them (read by the server's {@link ProtobufCodec}, or,
 * when client-java-proto is left out, by {@link ReviewProtobuf}, which knows just these four kinds, so that
 * {@code kubectl auth can-i} works on every server); malformed bodies answer 400, never 500.
 */
final class Reviews {

    static final String SELF_SUBJECT_ACCESS_REVIEW = "SelfSubjectAccessReview";
    static final String SUBJECT_ACCESS_REVIEW = "SubjectAccessReview";
    static final String SELF_SUBJECT_RULES_REVIEW = "SelfSubjectRulesReview";
    static final String SELF_SUBJECT_REVIEW = "SelfSubjectReview";
    private static final String AUTHORIZATION = "authorization.k8s.io";
    private static final String AUTHENTICATION = "authentication.k8s.io";

    private static final YAMLMapper YAML = YAMLMapper.builder().build();

    private final JsonMapper json;
    private final Authorizer authorizer;
    private final RuleResolver ruleResolver;
    /**
     * Built on the first protobuf body (building it loads every protobuf descriptor); empty when client-java-proto
     * is not on the class path, and {@link #fallback} reads protobuf bodies then.
     */
    private volatile Optional<ProtobufCodec> codec;

    private final ReviewProtobuf fallback;

    Reviews(JsonMapper json, Authorizer authorizer, RuleResolver ruleResolver) {
        this.json = json;
        this.authorizer = authorizer;
        this.ruleResolver = ruleResolver;
        this.fallback = new ReviewProtobuf(json);
    }

    static boolean serves(ResourceType type) {
        return (type.group().equals(AUTHORIZATION)
                        && (type.kind().equals(SELF_SUBJECT_ACCESS_REVIEW)
                                || type.kind().equals(SUBJECT_ACCESS_REVIEW)
                                || type.kind().equals(SELF_SUBJECT_RULES_REVIEW)))
                || (type.group().equals(AUTHENTICATION) && type.kind().equals(SELF_SUBJECT_REVIEW));
    }

    /**
     * The reviewed object with its status.
     *
     * @throws StatusException 405 for any method but POST, 415 for an unknown Content-Type, 400 for a body
     *     that cannot be decoded, 422 for a review without the attributes it needs
     */
    ObjectNode create(String method, String contentType, byte[] body, ResourceType type, UserInfo user) {
        if (!method.equals("POST")) {
            throw new StatusException(Statuses.failure(
                    StatusReason.MethodNotAllowed, "the server does not allow this method on the requested resource"));
        }
        ObjectNode review = decode(contentType, body, type);
        ObjectNode reply = json.createObjectNode();
        reply.put("kind", type.kind());
        reply.put("apiVersion", type.gvk().apiVersion());
        JsonNode metadata = review.get("metadata");
        reply.set("metadata", metadata != null && metadata.isObject() ? metadata : json.createObjectNode());
        if (type.kind().equals(SELF_SUBJECT_REVIEW)) {
            reply.putObject("status").set("userInfo", userInfo(user));
            return reply;
        }
        JsonNode spec = review.get("spec");
        if (spec != null && !spec.isNull() && !spec.isObject()) {
            throw new StatusException(Statuses.badRequest("spec of " + type.kind() + " must be an object"));
        }
        ObjectNode s = spec != null && spec.isObject() ? (ObjectNode) spec : json.createObjectNode();
        if (type.kind().equals(SELF_SUBJECT_RULES_REVIEW)) {
            reply.set("spec", s);
            reply.set("status", rulesStatus(user, text(s, "namespace")));
            return reply;
        }
        UserInfo subject = type.kind().equals(SUBJECT_ACCESS_REVIEW) ? subject(s, type) : user;
        Attributes attributes = attributes(s, subject, type);
        Decision decision = authorizer.authorize(attributes);
        reply.set("spec", s);
        ObjectNode status = reply.putObject("status");
        status.put("allowed", decision.allowed());
        if (!decision.reason().isEmpty()) {
            status.put("reason", decision.reason());
        }
        return reply;
    }

    private ObjectNode decode(String contentType, byte[] body, ResourceType type) {
        String mediaType =
                contentType == null ? "" : contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
        JsonNode node;
        switch (mediaType) {
            case "", "application/json", "*/*" -> node = parse(json, body, "json parse error");
            case "application/yaml" -> node = parse(YAML, body, "error converting YAML to JSON");
            case Envelope.MEDIA_TYPE -> {
                return fromProtobuf(body, type);
            }
            default ->
                throw new StatusException(Statuses.failure(
                        StatusReason.UnsupportedMediaType,
                        "the body of the request was in an unknown format - accepted media types include: "
                                + "application/json, application/yaml, " + Envelope.MEDIA_TYPE));
        }
        if (node == null || !node.isObject()) {
            throw new StatusException(Statuses.badRequest("the body of the request must be a JSON object"));
        }
        ObjectNode object = (ObjectNode) node;
        requireType(object.path("apiVersion").asString(""), object.path("kind").asString(""), type);
        return object;
    }

    private static JsonNode parse(ObjectMapper mapper, byte[] body, String what) {
        try {
            return mapper.readTree(body);
        } catch (JacksonException e) {
            throw new StatusException(
                    Statuses.badRequest("couldn't get version/kind; " + what + ": " + e.getOriginalMessage()));
        }
    }

    private ObjectNode fromProtobuf(byte[] body, ResourceType type) {
        Optional<ProtobufCodec> c = codec;
        if (c == null) {
            c = ProtobufSupport.codec(json); // racing threads may build two; both are the same codec
            codec = c;
        }
        if (c.isPresent()) {
            ProtobufCodec codec = c.get();
            ObjectNode review;
            try {
                review = codec.decode(body);
            } catch (ProtobufException e) {
                throw new StatusException(
                        Statuses.badRequest("the object provided is unrecognized (" + e.getMessage() + ")"));
            }
            requireType(
                    review.path("apiVersion").asString(""), review.path("kind").asString(""), type);
            return review;
        }
        try {
            Envelope envelope = Envelope.decode(body);
            if (!envelope.contentEncoding().isEmpty()) {
                throw new StatusException(Statuses.badRequest(
                        "unsupported protobuf content encoding \"" + envelope.contentEncoding() + "\""));
            }
            requireType(envelope.apiVersion(), envelope.kind(), type);
            return fallback.decode(type.kind(), envelope.raw());
        } catch (ProtobufException e) {
            throw new StatusException(
                    Statuses.badRequest("the object provided is unrecognized (" + e.getMessage() + ")"));
        }
    }

    private static void requireType(String apiVersion, String kind, ResourceType type) {
        if ((!apiVersion.isEmpty() && !apiVersion.equals(type.gvk().apiVersion()))
                || (!kind.isEmpty() && !kind.equals(type.kind()))) {
            throw new StatusException(Statuses.badRequest("the API version in the data (" + apiVersion + ") does not "
                    + "match the expected API version (" + type.gvk().apiVersion() + ")"));
        }
    }

    /** The identity a SubjectAccessReview asks about; at least a user or a group, as kube validates. */
    private static UserInfo subject(ObjectNode spec, ResourceType type) {
        String user = text(spec, "user");
        List<String> groups = new ArrayList<>();
        spec.path("groups").forEach(g -> groups.add(g.asString("")));
        if (user.isEmpty() && groups.isEmpty()) {
            throw new StatusException(Statuses.invalid(
                    type.group(),
                    type.kind(),
                    "",
                    List.of(new Statuses.FieldError(
                            "Invalid value", "spec.user", "\"\": at least one of user or group must be specified"))));
        }
        Map<String, List<String>> extra = new LinkedHashMap<>();
        spec.path("extra").properties().forEach(e -> {
            List<String> values = new ArrayList<>();
            e.getValue().forEach(v -> values.add(v.asString("")));
            extra.put(e.getKey(), values);
        });
        return new UserInfo(user, text(spec, "uid"), groups, extra);
    }

    private static Attributes attributes(ObjectNode spec, UserInfo user, ResourceType type) {
        JsonNode resource = spec.get("resourceAttributes");
        JsonNode nonResource = spec.get("nonResourceAttributes");
        boolean hasResource = resource != null && !resource.isNull();
        boolean hasNonResource = nonResource != null && !nonResource.isNull();
        if (hasResource == hasNonResource) {
            String field = hasResource ? "spec.nonResourceAttributes" : "spec.resourceAttributes";
            String detail = hasResource
                    ? "cannot be specified in combination with resourceAttributes"
                    : "exactly one of nonResourceAttributes or resourceAttributes must be specified";
            throw new StatusException(Statuses.invalid(
                    type.group(),
                    type.kind(),
                    "",
                    List.of(new Statuses.FieldError("Invalid value", field, "\"null\": " + detail))));
        }
        if (hasResource) {
            if (!resource.isObject()) {
                throw new StatusException(Statuses.badRequest("spec.resourceAttributes must be an object"));
            }
            String version = text(resource, "version");
            return new Attributes(
                    user,
                    text(resource, "verb"),
                    true,
                    text(resource, "group"),
                    version.isEmpty() ? "*" : version,
                    text(resource, "resource"),
                    text(resource, "subresource"),
                    text(resource, "namespace"),
                    text(resource, "name"),
                    "");
        }
        if (!nonResource.isObject()) {
            throw new StatusException(Statuses.badRequest("spec.nonResourceAttributes must be an object"));
        }
        return Attributes.nonResource(user, text(nonResource, "verb"), text(nonResource, "path"));
    }

    /** kube's SubjectRulesReviewStatus: the rules split into resource and non-resource rules. */
    private ObjectNode rulesStatus(UserInfo user, String namespace) {
        if (namespace.isEmpty()) {
            throw new StatusException(Statuses.badRequest("no namespace on request"));
        }
        RuleResolver.Rules rules = ruleResolver.rulesFor(user, namespace);
        ObjectNode status = json.createObjectNode();
        ArrayNode resourceRules = status.putArray("resourceRules");
        ArrayNode nonResourceRules = status.putArray("nonResourceRules");
        for (PolicyRule rule : rules.rules()) {
            if (!rule.resources().isEmpty()) {
                ObjectNode r = resourceRules.addObject();
                strings(r, "verbs", rule.verbs());
                strings(r, "apiGroups", rule.apiGroups());
                strings(r, "resources", rule.resources());
                strings(r, "resourceNames", rule.resourceNames());
            }
            if (!rule.nonResourceURLs().isEmpty()) {
                ObjectNode r = nonResourceRules.addObject();
                strings(r, "verbs", rule.verbs());
                strings(r, "nonResourceURLs", rule.nonResourceURLs());
            }
        }
        status.put("incomplete", false);
        if (!rules.evaluationError().isEmpty()) {
            status.put("evaluationError", rules.evaluationError());
        }
        return status;
    }

    /** {@code verbs} always (it is required), other lists only when not empty, as kube's omitempty. */
    private static void strings(ObjectNode target, String field, List<String> values) {
        if (!values.isEmpty() || field.equals("verbs")) {
            values.forEach(target.putArray(field)::add);
        }
    }

    private ObjectNode userInfo(UserInfo user) {
        ObjectNode info = json.createObjectNode();
        info.put("username", user.name());
        if (!user.uid().isEmpty()) {
            info.put("uid", user.uid());
        }
        if (!user.groups().isEmpty()) {
            user.groups().forEach(info.putArray("groups")::add);
        }
        if (!user.extra().isEmpty()) {
            ObjectNode extra = info.putObject("extra");
            user.extra().forEach((k, v) -> v.forEach(extra.putArray(k)::add));
        }
        return info;
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? "" : v.asString("");
    }
}
