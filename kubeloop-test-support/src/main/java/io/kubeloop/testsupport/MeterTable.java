package io.kubeloop.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Meter;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The meter tables of a module's documentation, checked against the meters the code registers, so that the
 * documented names cannot drift from the code. A table is recognised by its header
 * {@code | Micrometer name | Micrometer type | Prometheus name | tags | meaning |}; each row gives the dotted
 * Micrometer name, its type (gauge, counter, timer), the name a Prometheus registry renders and the tag keys, each
 * in backquotes.
 */
public final class MeterTable {

    static final String HEADER = "| Micrometer name | Micrometer type | Prometheus name | tags | meaning |";
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");

    /** One documented meter; {@code histogram}: the Prometheus cell says "histogram" (a timer with buckets). */
    public record Row(String micrometerName, String type, String prometheusName, Set<String> tags, boolean histogram) {}

    private MeterTable() {}

    /** Every row of every meter table in {@code markdown}, a path relative to the module. */
    public static List<Row> read(String markdown) throws IOException {
        List<String> lines = Files.readAllLines(Path.of(markdown));
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).trim().equals(HEADER)) {
                continue;
            }
            for (int j = i + 2; j < lines.size() && lines.get(j).startsWith("|"); j++) {
                String[] cells = lines.get(j).split("\\|");
                // cells[0] is empty (the line starts with |)
                String type = cells[2].trim().split("[ ,]")[0].toLowerCase(Locale.ROOT);
                Set<String> tags = new TreeSet<>();
                Matcher m = CODE.matcher(cells[4]);
                while (m.find()) {
                    tags.add(m.group(1));
                }
                rows.add(new Row(
                        code(cells[1], markdown, j),
                        type,
                        code(cells[3], markdown, j),
                        tags,
                        cells[3].contains("histogram")));
            }
        }
        assertThat(rows).as("meter tables in %s", markdown).isNotEmpty();
        return rows;
    }

    private static String code(String cell, String file, int line) {
        Matcher m = CODE.matcher(cell);
        if (!m.find()) {
            throw new AssertionError(file + ":" + (line + 1) + ": no `name` in cell \"" + cell.trim() + "\"");
        }
        return m.group(1);
    }

    /**
     * Asserts that {@code documented} lists exactly the meters in {@code registry} (by Micrometer name, with their
     * type and tag keys), and that the registry's scrape renders each under its documented Prometheus name.
     */
    public static void assertDocumented(List<Row> documented, PrometheusMeterRegistry registry) {
        Map<String, Row> registered = new TreeMap<>();
        for (Meter meter : registry.getMeters()) {
            Meter.Id id = meter.getId();
            Set<String> tags = new TreeSet<>();
            id.getTags().forEach(t -> tags.add(t.getKey()));
            Row row = new Row(id.getName(), id.getType().name().toLowerCase(Locale.ROOT), "", tags, false);
            Row seen = registered.putIfAbsent(id.getName(), row);
            if (seen != null) {
                seen.tags().addAll(tags);
            }
        }
        Map<String, Row> docs = new TreeMap<>();
        documented.forEach(r -> docs.put(r.micrometerName(), r));
        assertThat(docs.keySet())
                .as("documented Micrometer names = the names the code registers")
                .isEqualTo(registered.keySet());
        String scrape = registry.scrape();
        for (Row doc : documented) {
            Row code = registered.get(doc.micrometerName());
            assertThat(doc.type()).as("type of %s", doc.micrometerName()).isEqualTo(code.type());
            assertThat(doc.tags()).as("tags of %s", doc.micrometerName()).isEqualTo(code.tags());
            List<String> series = new ArrayList<>();
            if (doc.type().equals("timer")) { // a summary, or with buckets a histogram
                series.add(doc.prometheusName() + "_count");
                series.add(doc.prometheusName() + "_sum");
                if (doc.histogram()) {
                    series.add(doc.prometheusName() + "_bucket");
                }
            } else {
                series.add(doc.prometheusName());
            }
            for (String s : series) {
                // a series with labels ("name{"), or of a meter without tags ("name 0.0")
                assertThat(scrape)
                        .as("Prometheus renders %s as %s", doc.micrometerName(), doc.prometheusName())
                        .containsPattern("(?m)^" + Pattern.quote(s) + "[{ ]");
            }
        }
    }
}
