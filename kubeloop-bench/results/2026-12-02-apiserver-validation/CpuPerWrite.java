import io.kubeloop.apiserver.EmbeddedApiServer;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.*;

/** CPU-seconds of the whole process per create (client and server in one JVM), after a warm-up. */
public class CpuPerWrite {
    public static void main(String[] a) throws Exception {
        String kind = a[0];
        int n = Integer.parseInt(a[1]);
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long s0 = System.nanoTime();
        EmbeddedApiServer server = EmbeddedApiServer.builder().start();
        HttpClient http = HttpClient.newHttpClient();
        URI uri = URI.create(server.url() + "/api/v1/namespaces/default/" + kind);
        long firstStart = System.nanoTime();
        create(http, uri, kind, -1);
        long firstMs = (System.nanoTime() - firstStart) / 1_000_000;
        for (int i = 0; i < n; i++) create(http, uri, kind, i);           // warm-up
        long cpu0 = os.getProcessCpuTime(), t0 = System.nanoTime();
        for (int i = n; i < 3 * n; i++) create(http, uri, kind, i);
        long cpu = os.getProcessCpuTime() - cpu0, wall = System.nanoTime() - t0;
        System.out.printf("%s first=%dms cpu/op=%.1fus wall/op=%.1fus%n", kind, firstMs, cpu / 1e3 / (2.0 * n), wall / 1e3 / (2.0 * n));
        server.close();
    }
    static void create(HttpClient http, URI uri, String kind, int i) throws Exception {
        String body = kind.equals("pods")
            ? "{\"metadata\":{\"name\":\"p" + i + "\",\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":[{\"name\":\"nginx\",\"image\":\"nginx:1.27\",\"ports\":[{\"containerPort\":80}],\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"64Mi\"}}}]}}"
            : "{\"metadata\":{\"name\":\"c" + i + "\"},\"data\":{\"k\":\"v\"}}";
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 201) throw new IllegalStateException(r.statusCode() + " " + r.body());
    }
}
