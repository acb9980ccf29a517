package io.kubeloop.client.codec;

import io.fabric8.kubernetes.api.model.FieldsV1;
import java.util.LinkedHashMap;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.deser.std.StdDeserializer;

/**
 * {@code managedFields[].fieldsV1} for {@link Decoding#standard()}: an ordinary FieldsV1 whose map is a
 * {@link LazyJsonMap} over the subtree's JSON text, parsed on first use. The object behaves exactly as if the tree
 * had been decoded to maps (mutable, equal, serializes the same); only the cost moves to the rare reader.
 */
final class LazyFieldsV1 extends StdDeserializer<FieldsV1> {

    LazyFieldsV1() {
        super(FieldsV1.class);
    }

    @Override
    public FieldsV1 deserialize(JsonParser p, DeserializationContext ctxt) throws JacksonException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            return (FieldsV1) ctxt.handleUnexpectedToken(FieldsV1.class, p);
        }
        byte[] json = JsonText.copy(p);
        FieldsV1 fields = new FieldsV1();
        fields.setAdditionalProperties(JsonText.isEmptyObject(json) ? new LinkedHashMap<>() : new LazyJsonMap(json));
        return fields;
    }
}
