package io.kubeloop.bench.informer;

import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.UUID;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The bytes the replay server sends: a pod list of {@code pods} items and a watch burst of {@code events}
 * MODIFIED events, built from pods exactly as the embedded API server serves them (the seed pods are cycled; each
 * replayed pod gets its own name, uid, pod IP and resourceVersion, so no two cached pods share those strings).
 *
 * <p>ResourceVersions: item {@code i} has {@code i + 1}, the list has {@link #listResourceVersion()} = pods, and
 * burst event {@code k} has {@code pods + k + 1}, so a watch from the list's resourceVersion gets the burst and a
 * watch from any later one gets nothing.
 */
final class ReplayData {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    final int pods;
    final int events;
    /** The PodList with managedFields, as served. */
    final byte[] listWithManagedFields;
    /** The same PodList without any managedFields (a server that does not record them). */
    final byte[] listWithoutManagedFields;
    /** {@code events} watch events, one per line; empty when events is 0. */
    final byte[] burst;

    private ReplayData(int pods, int events, byte[] with, byte[] without, byte[] burst) {
        this.pods = pods;
        this.events = events;
        this.listWithManagedFields = with;
        this.listWithoutManagedFields = without;
        this.burst = burst;
    }

    String listResourceVersion() {
        return Integer.toString(pods);
    }

    /** The resourceVersion of the burst's last event: a handler that sees it has seen the whole burst. */
    String lastResourceVersion() {
        return Integer.toString(pods + events);
    }

    /**
     * {@code uniqueManagedFields}: the pod IP also changes in the managedFields key that names it
     * ({@code f:status/f:podIPs/k:{"ip":...}}), as in a real cluster, where every pod's status manager entry is
     * therefore unique; otherwise pods built from one seed share the seed's managedFields exactly.
     */
    static ReplayData build(List<ObjectNode> seeds, int pods, int events, boolean uniqueManagedFields) {
        if (seeds.isEmpty()) {
            throw new IllegalArgumentException("no seed pods to replay");
        }
        ObjectNode[] items = new ObjectNode[pods];
        for (int i = 0; i < pods; i++) {
            ObjectNode pod = seeds.get(i % seeds.size()).deepCopy();
            ObjectNode meta = (ObjectNode) pod.get("metadata");
            meta.put("name", String.format("web-7c9d8f5b4-%06d", i));
            meta.put("uid", new UUID(0x6b75_6265_6c6f_6f70L, i).toString());
            meta.put("resourceVersion", Integer.toString(i + 1));
            ObjectNode status = (ObjectNode) pod.get("status");
            String ip = "10." + (i >> 16 & 0xff) + "." + (i >> 8 & 0xff) + "." + (i & 0xff);
            String seedIp = status.path("podIP").asString();
            status.put("podIP", ip);
            ((ObjectNode) status.get("podIPs").get(0)).put("ip", ip);
            if (uniqueManagedFields) {
                renamePodIpKey(meta, seedIp, ip);
            }
            items[i] = pod;
        }
        byte[] with = list(items, pods, false);
        byte[] without = list(items, pods, true);
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(1, events) * 6_600);
        for (int k = 0; k < events; k++) {
            ObjectNode object =
                    MAPPER.createObjectNode().put("apiVersion", "v1").put("kind", "Pod");
            object.setAll(items[k % pods].deepCopy());
            ((ObjectNode) object.get("metadata")).put("resourceVersion", Integer.toString(pods + k + 1));
            ObjectNode event = MAPPER.createObjectNode().put("type", "MODIFIED");
            event.set("object", object);
            out.writeBytes(MAPPER.writeValueAsBytes(event));
            out.write('\n');
        }
        return new ReplayData(pods, events, with, without, out.toByteArray());
    }

    private static void renamePodIpKey(ObjectNode meta, String from, String to) {
        String oldKey = "k:{\"ip\":\"" + from + "\"}";
        String newKey = "k:{\"ip\":\"" + to + "\"}";
        for (tools.jackson.databind.JsonNode entry : meta.path("managedFields")) {
            tools.jackson.databind.JsonNode ips =
                    entry.path("fieldsV1").path("f:status").path("f:podIPs");
            if (ips instanceof ObjectNode o && o.has(oldKey)) {
                o.set(newKey, o.remove(oldKey));
            }
        }
    }

    private static byte[] list(ObjectNode[] items, int pods, boolean stripManagedFields) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(items.length * (stripManagedFields ? 3_400 : 6_400));
        out.writeBytes(("{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"" + pods
                        + "\"},\"items\":[")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
        for (int i = 0; i < items.length; i++) {
            if (i > 0) {
                out.write(',');
            }
            ObjectNode item = items[i];
            if (stripManagedFields) {
                item = item.deepCopy();
                ((ObjectNode) item.get("metadata")).remove("managedFields");
            }
            out.writeBytes(MAPPER.writeValueAsBytes(item));
        }
        out.writeBytes("]}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return out.toByteArray();
    }
}
