package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.internal.protobuf.Envelope;
import io.kubeloop.apiserver.internal.protobuf.ProtobufCodec;
import io.kubeloop.apiserver.internal.protobuf.ProtobufSupport;
import io.kubeloop.apiserver.internal.protobuf.WireReader;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A raw HTTP client that speaks the Kubernetes protobuf encoding as client-go does: bodies are encoded and answers
 * decoded with the server's own codec, so that a test states what it sends and gets back as JSON. Every call goes
 * over a real socket.
 */
final class ProtobufClient {

    static final String PROTOBUF = "application/vnd.kubernetes.protobuf";
    static final String WATCH = PROTOBUF + ";stream=watch";
    /** What client-go's typed clients send: protobuf preferred, JSON accepted. */
    static final String TYPED_CLIENT_ACCEPT = PROTOBUF + ",application/json";

    /** The codec of the class path (client-java-proto is a test dependency). */
    static final ProtobufCodec CODEC = ProtobufSupport.codec(ApiClient.JSON).orElseThrow();

    /**
     * An answer: its code, Content-Type and body, decoded from whichever encoding it came in.
     *
     * @param body the decoded body; null when it was empty
     * @param warnings the answer's {@code Warning} headers
     */
    record Reply(int code, String contentType, JsonNode body, List<String> warnings) {
        boolean isProtobuf() {
            return contentType.equals(PROTOBUF);
        }
    }

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI base;

    ProtobufClient(URI base) {
        this.base = base;
    }

    /** {@code object} (JSON with apiVersion and kind) encoded as protobuf. */
    static byte[] encode(String json) {
        return CODEC.encode(ApiClient.JSON.readTree(json));
    }

    /** A request whose body is {@code body} sent as {@code contentType} (null: no header), with an Accept header. */
    Reply send(String method, String path, String contentType, byte[] body, String accept) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(30))
                .method(
                        method,
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofByteArray(body));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        if (accept != null) {
            b.header("Accept", accept);
        }
        try {
            HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            String type = r.headers().firstValue("Content-Type").orElse("");
            byte[] bytes = r.body();
            JsonNode decoded = bytes.length == 0
                    ? null
                    : type.equals(PROTOBUF) ? CODEC.decode(bytes) : ApiClient.JSON.readTree(bytes);
            return new Reply(r.statusCode(), type, decoded, r.headers().allValues("Warning"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A protobuf body sent as client-go sends it: Content-Type protobuf, Accept protobuf or JSON. */
    Reply send(String method, String path, byte[] protobufBody) {
        return send(method, path, PROTOBUF, protobufBody, TYPED_CLIENT_ACCEPT);
    }

    /** A GET accepting only protobuf. */
    Reply get(String path) {
        return send("GET", path, null, null, PROTOBUF);
    }

    /** A watch accepting only protobuf, whose frames are decoded on a background thread. */
    FrameWatch watch(String path) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + path))
                .header("Accept", PROTOBUF)
                .GET()
                .build();
        try {
            return new FrameWatch(http.send(request, HttpResponse.BodyHandlers.ofInputStream()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * A protobuf watch stream: frames of a 4-byte big-endian length and an envelope holding a meta/v1 WatchEvent
     * {type = 1, object = 2 (a RawExtension whose raw = 1 is the object's own whole protobuf body)}.
     */
    static final class FrameWatch implements AutoCloseable {
        /** An event as JSON: {@code {"type": ..., "object": ...}}. */
        private static final JsonNode END = ApiClient.JSON.createObjectNode().put("type", "END");

        final int code;
        final String contentType;
        private final BlockingQueue<JsonNode> events = new LinkedBlockingQueue<>();
        private final InputStream body;

        FrameWatch(HttpResponse<InputStream> response) {
            this.code = response.statusCode();
            this.contentType = response.headers().firstValue("Content-Type").orElse("");
            this.body = response.body();
            Thread.ofVirtual().start(() -> {
                try (DataInputStream in = new DataInputStream(body)) {
                    while (true) {
                        int length = in.readInt();
                        assertThat(length).as("frame length").isBetween(0, 16 * 1024 * 1024);
                        byte[] frame = in.readNBytes(length);
                        events.add(event(frame));
                    }
                } catch (EOFException | UncheckedIOException end) {
                    // the stream ended
                } catch (IOException closed) {
                    // the test closed the stream
                } finally {
                    events.add(END);
                }
            });
        }

        private static JsonNode event(byte[] frame) {
            Envelope envelope = Envelope.decode(frame);
            assertThat(envelope.kind()).isEqualTo("WatchEvent");
            ObjectNode event = ApiClient.JSON.createObjectNode();
            WireReader r = new WireReader(envelope.raw());
            while (r.next()) {
                switch (r.fieldNumber()) {
                    case 1 -> event.put("type", r.readString());
                    case 2 -> {
                        WireReader raw = r.readMessage();
                        while (raw.next()) {
                            if (raw.fieldNumber() == 1) {
                                event.set("object", CODEC.decode(raw.readBytes()));
                            } else {
                                raw.skip();
                            }
                        }
                    }
                    default -> r.skip();
                }
            }
            return event;
        }

        /** The next event, waiting at most 10 s; fails if none comes. */
        JsonNode next() throws InterruptedException {
            JsonNode event = events.poll(10, TimeUnit.SECONDS);
            assertThat(event).as("a watch event within 10 s").isNotNull();
            assertThat(event).as("the watch ended early").isNotSameAs(END);
            return event;
        }

        /** True if the stream ends within 10 s with no further event. */
        boolean ended() throws InterruptedException {
            return events.poll(10, TimeUnit.SECONDS) == END;
        }

        @Override
        public void close() throws IOException {
            body.close();
        }
    }
}
