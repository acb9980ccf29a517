package io.kubeloop.cluster.internal.endpoints;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.cluster.internal.endpoints.Subsets.Address;
import io.kubeloop.cluster.internal.endpoints.Subsets.Port;
import io.kubeloop.cluster.internal.endpoints.Subsets.Subset;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** kube's {@code RepackSubsets} and {@code truncateEndpoints} cases, on values. */
class SubsetsTest {

    private static final Port HTTP = new Port("http", 8080, "TCP", "");
    private static final Port METRICS = new Port("metrics", 9100, "TCP", "");

    private static Address pod(String ip) {
        return new Address(ip, "", "node-1", "ns", "pod-" + ip, "uid-" + ip);
    }

    @Test
    void addressesOfferingTheSamePortsShareOneSubset() {
        // one subset per (pod, port) in, as the controller builds them
        List<Subset> in = List.of(
                new Subset(List.of(pod("10.0.0.2")), List.of(), List.of(HTTP)),
                new Subset(List.of(pod("10.0.0.2")), List.of(), List.of(METRICS)),
                new Subset(List.of(pod("10.0.0.1")), List.of(), List.of(HTTP)),
                new Subset(List.of(pod("10.0.0.1")), List.of(), List.of(METRICS)),
                new Subset(List.of(), List.of(pod("10.0.0.3")), List.of(HTTP)));

        List<Subset> out = Subsets.repack(in);

        // 10.0.0.3 offers only http (not ready): http's address set differs from metrics', so two subsets
        assertThat(out)
                .containsExactly(
                        new Subset(List.of(pod("10.0.0.1"), pod("10.0.0.2")), List.of(pod("10.0.0.3")), List.of(HTTP)),
                        new Subset(List.of(pod("10.0.0.1"), pod("10.0.0.2")), List.of(), List.of(METRICS)));
    }

    @Test
    void notReadyWinsOverReadyForOneAddressAndPort() {
        List<Subset> out = Subsets.repack(List.of(
                new Subset(List.of(pod("10.0.0.1")), List.of(), List.of(HTTP)),
                new Subset(List.of(), List.of(pod("10.0.0.1")), List.of(HTTP))));
        assertThat(out).containsExactly(new Subset(List.of(), List.of(pod("10.0.0.1")), List.of(HTTP)));
    }

    @Test
    void samePortsGoTogetherAndAHeadlessServiceWithoutPortsKeepsItsAddresses() {
        List<Subset> both = Subsets.repack(List.of(
                new Subset(List.of(pod("10.0.0.1")), List.of(), List.of(METRICS, HTTP)),
                new Subset(List.of(pod("10.0.0.2")), List.of(), List.of(HTTP, METRICS))));
        assertThat(both)
                .containsExactly(
                        new Subset(List.of(pod("10.0.0.1"), pod("10.0.0.2")), List.of(), List.of(HTTP, METRICS)));

        List<Subset> portless = Subsets.repack(List.of(
                new Subset(List.of(pod("10.0.0.9")), List.of(), List.of()),
                new Subset(List.of(pod("10.0.0.8")), List.of(), List.of())));
        assertThat(portless)
                .containsExactly(new Subset(List.of(pod("10.0.0.8"), pod("10.0.0.9")), List.of(), List.of()));
    }

    @Test
    void truncationKeepsReadyAddressesFirstAndSharesByProportion() {
        List<Address> ready = addresses("10.1.", 600);
        List<Address> notReady = addresses("10.2.", 600);
        List<Subset> in = List.of(
                new Subset(ready.subList(0, 300), notReady.subList(0, 150), List.of(HTTP)),
                new Subset(ready.subList(300, 600), notReady.subList(150, 600), List.of(METRICS)));

        List<Subset> out = Subsets.truncate(in);

        // 600 ready stay; the 400 left go to the not-ready in proportion 150:450 → 100 and 300
        assertThat(Subsets.count(out)).isEqualTo(Subsets.MAX_CAPACITY);
        assertThat(out.get(0).addresses()).hasSize(300);
        assertThat(out.get(0).notReadyAddresses()).hasSize(100);
        assertThat(out.get(1).addresses()).hasSize(300);
        assertThat(out.get(1).notReadyAddresses()).hasSize(300);

        List<Subset> allReady = List.of(
                new Subset(addresses("10.3.", 700), List.of(), List.of(HTTP)),
                new Subset(addresses("10.4.", 700), addresses("10.5.", 10), List.of(METRICS)));
        List<Subset> cut = Subsets.truncate(allReady);
        assertThat(cut.get(0).addresses()).hasSize(500);
        assertThat(cut.get(1).addresses()).hasSize(500);
        assertThat(cut.get(1).notReadyAddresses()).isEmpty();

        List<Subset> small = List.of(new Subset(addresses("10.6.", 10), List.of(), List.of(HTTP)));
        assertThat(Subsets.truncate(small)).isSameAs(small);
    }

    @Test
    void modelRoundTripKeepsWhatTheControllerWrites() {
        List<Subset> subsets = List.of(new Subset(
                List.of(new Address("10.0.0.1", "db-0", "node-1", "ns", "db-0", "u1")),
                List.of(new Address("10.0.0.2", "", "", "ns", "db-1", "u2")),
                List.of(new Port("", 5432, "TCP", "postgresql"))));
        assertThat(Subsets.fromModel(Subsets.toModel(subsets))).isEqualTo(subsets);
    }

    @Test
    void triggerTimesPrintAsGoRfc3339Nano() {
        assertThat(PodEndpoints.formatRfc3339Nano(Instant.parse("2025-01-02T03:04:05Z")))
                .isEqualTo("2025-01-02T03:04:05Z");
        assertThat(PodEndpoints.formatRfc3339Nano(Instant.parse("2025-01-02T03:04:05.500Z")))
                .isEqualTo("2025-01-02T03:04:05.5Z");
        assertThat(PodEndpoints.formatRfc3339Nano(Instant.parse("2025-01-02T03:04:05.000120Z")))
                .isEqualTo("2025-01-02T03:04:05.00012Z");
    }

    private static List<Address> addresses(String prefix, int n) {
        List<Address> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(pod(prefix + (i / 250) + "." + (i % 250)));
        }
        out.sort(Subsets.ADDRESS_ORDER);
        return out;
    }
}
