package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Random protobuf bodies over HTTP against one server: random bytes, random bytes behind the {@code k8s\0} prefix,
 * and valid bodies truncated or with bytes flipped, sent to every endpoint that reads a protobuf body. Every one
 * gets an answer below 500 (a refusal is a Status with its code in the HTTP status), and the server stays up.
 */
class ProtobufBodyFuzzProperties {

    private static final String DEPLOYMENT = "/apis/apps/v1/namespaces/default/deployments/web";
    /** The endpoints that read bodies, with a valid body for each. */
    private static final List<Target> TARGETS = List.of(
            new Target("POST", "/api/v1/namespaces/default/configmaps", """
                    {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"b"}},
                     "data":{"k":"v"},"binaryData":{"b":"AAEC"}}"""),
            new Target("POST", "/apis/apps/v1/namespaces/default/deployments", """
                    {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
                     "spec":{"replicas":3,"selector":{"matchLabels":{"app":"d"}},
                      "template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"i",
                       "ports":[{"containerPort":80}],"resources":{"limits":{"cpu":"500m"}}}]}}}}"""),
            new Target("PUT", DEPLOYMENT, """
                    {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
                     "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
                      "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}"""),
            new Target("PUT", DEPLOYMENT + "/status", """
                    {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"status":{"replicas":1}}"""),
            new Target("PUT", DEPLOYMENT + "/scale", """
                    {"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web"},"spec":{"replicas":2}}"""),
            new Target("DELETE", "/api/v1/namespaces/default/configmaps/c", """
                    {"apiVersion":"v1","kind":"DeleteOptions","dryRun":["All"],"gracePeriodSeconds":0}"""),
            new Target("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", """
                    {"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview",
                     "spec":{"resourceAttributes":{"namespace":"default","verb":"get","resource":"pods"}}}"""));

    private record Target(String method, String path, String validJson) {
        byte[] valid() {
            return ProtobufClient.encode(validJson);
        }
    }

    private static EmbeddedApiServer server;
    private static ProtobufClient client;

    @BeforeContainer
    static void start() {
        server = EmbeddedApiServer.builder().start();
        client = new ProtobufClient(server.url());
        ApiClient api = new ApiClient(server.url());
        api.create("/apis/apps/v1/namespaces/default/deployments", """
                {"metadata":{"name":"web"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
                 "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}""");
    }

    @AfterContainer
    static void stop() {
        server.close();
    }

    @Property(tries = 400)
    void everyBodyGetsAnAnswerAndTheServerStaysUp(@ForAll("targets") Target target, @ForAll("bodies") Mutation body) {
        byte[] sent = body.apply(target.valid());
        ProtobufClient.Reply reply = client.send(target.method(), target.path(), sent);
        assertThat(reply.code())
                .as("%s %s: %s", target.method(), target.path(), reply.body())
                .isBetween(200, 499);
        if (reply.code() >= 400) {
            assertThat(reply.body().path("kind").asString()).isEqualTo("Status");
            assertThat(reply.body().path("code").asInt()).isEqualTo(reply.code());
            assertThat(reply.body().path("message").asString()).isNotEmpty();
        }
        assertThat(new ApiClient(server.url()).get("/version").code()).isEqualTo(200);
    }

    @Provide
    Arbitrary<Target> targets() {
        return Arbitraries.of(TARGETS);
    }

    /** How a body is made from the target's valid one. */
    interface Mutation {
        byte[] apply(byte[] valid);
    }

    @Provide
    Arbitrary<Mutation> bodies() {
        Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofMaxSize(300);
        Arbitrary<Mutation> noise = random.map(bytes -> valid -> bytes);
        Arbitrary<Mutation> prefixed = random.map(bytes -> valid -> {
            byte[] body = Arrays.copyOf(new byte[] {'k', '8', 's', 0}, 4 + bytes.length);
            System.arraycopy(bytes, 0, body, 4, bytes.length);
            return body;
        });
        Arbitrary<Mutation> truncated = Arbitraries.doubles()
                .between(0, 1)
                .map(fraction -> valid -> Arrays.copyOf(valid, (int) (valid.length * fraction)));
        Arbitrary<Mutation> flipped = Combinators.combine(
                        Arbitraries.doubles().between(0, 1).list().ofMinSize(1).ofMaxSize(4),
                        Arbitraries.bytes().list().ofSize(4))
                .as((positions, values) -> valid -> {
                    byte[] body = valid.clone();
                    for (int i = 0; i < positions.size(); i++) {
                        body[Math.min(body.length - 1, 4 + (int) ((body.length - 4) * positions.get(i)))] =
                                values.get(i);
                    }
                    return body;
                });
        return Arbitraries.oneOf(noise, prefixed, truncated, flipped);
    }
}
