package io.kubeloop.client.resource;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.transport.RateLimiter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** 10,000 ConfigMaps created through the client and read back in pages of 500 from one snapshot. */
class PagingIT {

    private static final int COUNT = 10_000;
    private static final int PAGE = 500;
    /** The ConfigMap every namespace has, as on a cluster: it sorts after the test's own, on a page of its own. */
    private static final String SEEDED = "kube-root-ca.crt";

    private static EmbeddedApiServer server;
    private static KubernetesClient client;
    private static ResourceClient<ConfigMap> cms;
    private static Set<String> names;

    @BeforeAll
    static void createThem() throws Exception {
        server = EmbeddedApiServer.builder().start();
        client = KubernetesClient.builder(ClientConfig.builder()
                        .server(server.url())
                        .namespace("paging")
                        .build())
                .rateLimiter(RateLimiter.unlimited())
                .build();
        client.resources(Namespace.class)
                .create(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName("paging")
                        .endMetadata()
                        .build());
        cms = client.resources(ConfigMap.class);
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(10))
                .pollInterval(java.time.Duration.ofMillis(10))
                .until(() -> cms.get(SEEDED).isPresent());
        names = IntStream.range(0, COUNT)
                .mapToObj(i -> String.format("cm-%05d", i))
                .collect(Collectors.toSet());
        try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
            List<Future<?>> done = new ArrayList<>();
            for (String name : names) {
                done.add(pool.submit(() -> cms.create(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .addToData("k", name)
                        .build())));
            }
            for (Future<?> f : done) {
                f.get();
            }
        }
    }

    @AfterAll
    static void stop() {
        client.close();
        server.close();
    }

    @Test
    void pagesOfOneSnapshotHoldEveryNameExactlyOnce() {
        ListOptions first = ListOptions.builder().limit(PAGE).build();
        ListPage<ConfigMap> page = cms.list(first);
        String snapshot = page.resourceVersion();
        assertThat(page.remainingItemCount()).isEqualTo((long) COUNT + 1 - PAGE);
        List<String> seen = new ArrayList<>();
        int pages = 0;
        // writes after the first page: a snapshot does not see them
        cms.create(new ConfigMapBuilder()
                .withNewMetadata()
                .withName("late")
                .endMetadata()
                .build());
        cms.delete("cm-09999");
        while (true) {
            pages++;
            assertThat(page.resourceVersion()).isEqualTo(snapshot);
            assertThat(page.items()).hasSizeLessThanOrEqualTo(PAGE);
            page.items().forEach(cm -> seen.add(cm.getMetadata().getName()));
            if (!page.hasMore()) {
                break;
            }
            assertThat(pages).isLessThanOrEqualTo(COUNT / PAGE); // bounded: 21 pages at most
            page = cms.list(ListOptions.builder()
                    .limit(PAGE)
                    .continueToken(page.continueToken())
                    .build());
        }
        assertThat(pages).isEqualTo(COUNT / PAGE + 1);
        assertThat(seen).hasSize(COUNT + 1).doesNotHaveDuplicates().endsWith(SEEDED);
        seen.remove(SEEDED);
        assertThat(new HashSet<>(seen)).isEqualTo(names);

        // listAll follows the continue tokens from a new snapshot, with the write and the delete above
        ListPage<ConfigMap> all = cms.listAll(PAGE, ListOptions.none());
        assertThat(all.items())
                .hasSize(COUNT + 1)
                .extracting(cm -> cm.getMetadata().getName())
                .doesNotHaveDuplicates()
                .contains("late")
                .doesNotContain("cm-09999");
        assertThat(Long.parseLong(all.resourceVersion())).isGreaterThan(Long.parseLong(snapshot));
    }

    @Test
    void anExpiredContinueTokenFallsBackToOneFullList() {
        ListPage<ConfigMap> first = cms.list(ListOptions.builder().limit(PAGE).build());
        // a later write, then compaction: the first page's snapshot is gone and its token with it
        cms.patch("cm-00000", PatchType.MERGE, "{\"data\":{\"touched\":\"yes\"}}", PatchOptions.none());
        server.compact();
        try {
            cms.list(ListOptions.builder()
                    .limit(PAGE)
                    .continueToken(first.continueToken())
                    .build());
            throw new AssertionError("the embedded server kept the snapshot after compaction");
        } catch (io.kubeloop.client.errors.ExpiredException expected) {
            assertThat(expected.isContinueExpired()).isTrue();
        }
        ListPage<ConfigMap> all = cms.listAll(
                PAGE, ListOptions.builder().continueToken(first.continueToken()).build());
        assertThat(all.items())
                .extracting(cm -> cm.getMetadata().getName())
                .doesNotHaveDuplicates()
                .contains("cm-00000", "cm-00001");
        assertThat(all.items().stream()
                        .filter(cm -> cm.getMetadata().getName().equals("cm-00000"))
                        .findFirst()
                        .orElseThrow()
                        .getData())
                .containsEntry("touched", "yes");
    }
}
