package io.kubeloop.client.resource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The options' validation and how they become a query. */
class OptionsTest {

    @Test
    void listOptionsBecomeAnEncodedQuery() {
        ListOptions o = ListOptions.builder()
                .labelSelector("app in (a,b),!beta")
                .fieldSelector("metadata.name=x")
                .limit(500)
                .continueToken("tok+/=")
                .resourceVersion("42")
                .resourceVersionMatch("NotOlderThan")
                .timeoutSeconds(7)
                .build();
        Query q = new Query();
        o.appendTo(q);
        assertThat(q.toString())
                .isEqualTo("?labelSelector=app%20in%20%28a%2Cb%29%2C%21beta"
                        + "&fieldSelector=metadata.name%3Dx&limit=500&continue=tok%2B%2F%3D&resourceVersion=42"
                        + "&resourceVersionMatch=NotOlderThan&timeoutSeconds=7");
        assertThat(o.toBuilder().build()).isEqualTo(o);
        Query none = new Query();
        ListOptions.none().appendTo(none);
        assertThat(none.toString()).isEmpty();
        assertThat(ListOptions.none()).hasToString("ListOptions{}");
    }

    @Test
    void watchOptionsBecomeAnEncodedWatchQuery() {
        WatchOptions o = WatchOptions.builder()
                .labelSelector("app=web,tier!=db")
                .fieldSelector("metadata.name=x")
                .resourceVersion("42")
                .resourceVersionMatch("NotOlderThan")
                .timeoutSeconds(30)
                .allowWatchBookmarks(true)
                .sendInitialEvents(true)
                .build();
        assertThat(o.toQuery().toString())
                .isEqualTo("?watch=true&labelSelector=app%3Dweb%2Ctier%21%3Ddb"
                        + "&fieldSelector=metadata.name%3Dx&resourceVersion=42&resourceVersionMatch=NotOlderThan"
                        + "&timeoutSeconds=30&allowWatchBookmarks=true&sendInitialEvents=true");
        assertThat(o.toBuilder().build()).isEqualTo(o);
        assertThat(WatchOptions.none().toQuery().toString()).isEqualTo("?watch=true");
        assertThat(WatchOptions.none()).hasToString("WatchOptions{}");
        assertThat(WatchOptions.builder()
                        .sendInitialEvents(false)
                        .build()
                        .toQuery()
                        .toString())
                .isEqualTo("?watch=true&sendInitialEvents=false");
        assertThatThrownBy(() -> WatchOptions.builder().timeoutSeconds(-1).build())
                .hasMessageContaining("timeoutSeconds");
        assertThatThrownBy(() ->
                        WatchOptions.builder().resourceVersionMatch("Newest").build())
                .hasMessageContaining("resourceVersionMatch is NotOlderThan or Exact: Newest");
    }

    @Test
    void badOptionsAreRefusedWithTheirName() {
        assertThatThrownBy(() -> ListOptions.builder().limit(-1).build()).hasMessageContaining("limit");
        assertThatThrownBy(() -> ListOptions.builder().resourceVersionMatch("Newest"))
                .hasMessage("resourceVersionMatch is NotOlderThan or Exact: Newest");
        assertThatThrownBy(() -> ListOptions.builder().timeoutSeconds(-2).build())
                .hasMessageContaining("timeoutSeconds");
        assertThatThrownBy(() -> DeleteOptions.defaults().withGracePeriodSeconds(-1L))
                .hasMessageContaining("gracePeriodSeconds");
        assertThatThrownBy(() -> PatchOptions.apply("")).hasMessage("fieldManager is empty");
    }

    @Test
    void deleteOptionsBecomeADeleteOptionsBody() {
        assertThat(DeleteOptions.defaults()
                        .withPropagation(DeleteOptions.Propagation.FOREGROUND)
                        .withGracePeriodSeconds(0L)
                        .withPreconditions("u-1", "9")
                        .withDryRun(true)
                        .toJson(false)
                        .toString())
                .isEqualTo("{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"propagationPolicy\":\"Foreground\","
                        + "\"gracePeriodSeconds\":0,\"preconditions\":{\"uid\":\"u-1\",\"resourceVersion\":\"9\"},"
                        + "\"dryRun\":[\"All\"]}");
        assertThat(DeleteOptions.defaults().toJson(true).toString())
                .isEqualTo("{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"dryRun\":[\"All\"]}");
    }
}
