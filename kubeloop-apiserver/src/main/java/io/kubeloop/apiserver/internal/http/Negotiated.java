package io.kubeloop.apiserver.internal.http;

import io.kubeloop.model.StatusReason;
import io.kubeloop.model.Statuses;

/**
 * What a resource request's {@code Accept} header asks its answer to be, negotiated as kube-apiserver does: the
 * first acceptable range ({@code q} above 0) this server can serve decides; none at all is a 406 NotAcceptable
 * naming the media types that are served.
 *
 * <p>Served: {@code application/json} (and the wildcards), with {@code as=Table} or {@code
 * as=PartialObjectMetadata[List]} ({@code g=meta.k8s.io}, {@code v=v1} or {@code v1beta1}); {@code
 * application/yaml}, plain or as PartialObjectMetadata[List], not for watches (kube has no YAML stream); {@code
 * application/vnd.kubernetes.protobuf}, plain, or as PartialObjectMetadata[List] when the protobuf codec is present.
 * A plain protobuf range keeps this server's rule (see {@link Protobuf#acceptsOnlyProtobuf}): protobuf only when
 * the client accepts nothing else, otherwise the JSON the rest of the header allows.
 *
 * @param encoding how the answer is encoded
 * @param view what the answer shows of the objects
 * @param metaVersion {@code v1} or {@code v1beta1}: the meta.k8s.io version of a Table or PartialObjectMetadata view
 */
record Negotiated(Encoding encoding, View view, String metaVersion) {

    enum Encoding {
        JSON,
        YAML,
        PROTOBUF
    }

    enum View {
        /** The objects themselves. */
        OBJECT,
        /** A meta.k8s.io Table (rendered by {@link TableView}). */
        TABLE,
        /** Each object as a meta.k8s.io PartialObjectMetadata: its metadata only. */
        PARTIAL,
        /** A list as a meta.k8s.io PartialObjectMetadataList. */
        PARTIAL_LIST
    }

    static final Negotiated JSON = new Negotiated(Encoding.JSON, View.OBJECT, "");

    private static final java.util.Set<String> SERVABLE =
            java.util.Set.of("application/json", "application/*", "*/*", "application/yaml", Protobuf.MEDIA_TYPE);

    /** Whether the answer is metadata only (PartialObjectMetadata or its list). */
    boolean partial() {
        return view == View.PARTIAL || view == View.PARTIAL_LIST;
    }

    /** The apiVersion of a metadata-only answer. */
    String metaApiVersion() {
        return "meta.k8s.io/" + metaVersion;
    }

    /**
     * Negotiates {@code accept} (null: anything) for a request that is a watch or not.
     *
     * @throws ApiException 406 NotAcceptable when no range can be served
     */
    static Negotiated of(String accept, boolean watch, Protobuf protobuf) {
        if (Protobuf.acceptsOnlyProtobuf(accept)) {
            return new Negotiated(Encoding.PROTOBUF, View.OBJECT, "");
        }
        boolean plainProtobuf = false;
        boolean refusedServable = false;
        for (MediaType range : MediaType.parseAccept(accept)) {
            if (!range.acceptable()) {
                // A servable type refused with q=0 and nothing else servable: JSON, as this server always answered.
                refusedServable |= range.param("as") == null && SERVABLE.contains(range.type());
                continue;
            }
            String type = range.type();
            String as = range.param("as");
            if (type.equals("application/json") || type.equals("application/*") || type.equals("*/*")) {
                if (as == null) {
                    return JSON;
                }
                Negotiated view = metaView(range, Encoding.JSON, true);
                if (view != null) {
                    return view;
                }
            } else if (type.equals("application/yaml") && !watch) {
                if (as == null) {
                    return new Negotiated(Encoding.YAML, View.OBJECT, "");
                }
                Negotiated view = metaView(range, Encoding.YAML, false);
                if (view != null) {
                    return view;
                }
            } else if (type.equals(Protobuf.MEDIA_TYPE)) {
                if (as == null) {
                    plainProtobuf = true; // served as JSON when the header allows JSON further on (see above)
                    continue;
                }
                Negotiated view = metaView(range, Encoding.PROTOBUF, false);
                if (view != null && protobuf.supports(view.metaApiVersion(), as)) {
                    return view;
                }
            }
        }
        if (plainProtobuf) {
            return new Negotiated(Encoding.PROTOBUF, View.OBJECT, "");
        }
        if (refusedServable) {
            return JSON;
        }
        throw new ApiException(notAcceptable(watch, protobuf));
    }

    /** The meta.k8s.io view a range asks for ({@code as}, {@code g}, {@code v}), or null when it is none served. */
    private static Negotiated metaView(MediaType range, Encoding encoding, boolean tables) {
        String version = range.param("v");
        if (!"meta.k8s.io".equals(range.param("g")) || !("v1".equals(version) || "v1beta1".equals(version))) {
            return null;
        }
        return switch (range.param("as")) {
            case "Table" -> tables ? new Negotiated(encoding, View.TABLE, version) : null;
            case "PartialObjectMetadata" -> new Negotiated(encoding, View.PARTIAL, version);
            case "PartialObjectMetadataList" -> new Negotiated(encoding, View.PARTIAL_LIST, version);
            default -> null;
        };
    }

    /** kube-apiserver's 406: {@code only the following media types are accepted: ...}. */
    private static io.fabric8.kubernetes.api.model.Status notAcceptable(boolean watch, Protobuf protobuf) {
        String types = watch ? "application/json" : "application/json, application/yaml";
        if (protobuf.available()) {
            types += ", " + Protobuf.MEDIA_TYPE;
        }
        return Statuses.failure(StatusReason.NotAcceptable, "only the following media types are accepted: " + types);
    }
}
