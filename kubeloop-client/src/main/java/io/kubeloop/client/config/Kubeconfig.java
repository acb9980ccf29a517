package io.kubeloop.client.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * One or more kubeconfig files merged by clientcmd's rules: for {@code clusters}, {@code users} and
 * {@code contexts} the first file that defines a name wins (entries are never merged field by field), and
 * {@code current-context} comes from the first file that sets it. Every entry remembers its file, so that
 * relative paths resolve against that file's folder and errors name it.
 */
final class Kubeconfig {

    private static final YAMLMapper YAML = YAMLMapper.builder().build();

    /** A named cluster, user or context entry and the file that defined it. */
    record Entry(String name, JsonNode body, Path file, String section) {

        /** "kubeconfig /x/config: user \"alice\"" */
        String where() {
            return "kubeconfig " + file + ": " + section + " \"" + name + "\"";
        }

        Path resolve(String path) {
            Path p = Path.of(path);
            return p.isAbsolute()
                    ? p
                    : file.toAbsolutePath().getParent().resolve(p).normalize();
        }
    }

    final List<Path> files;
    final Map<String, Entry> clusters = new LinkedHashMap<>();
    final Map<String, Entry> users = new LinkedHashMap<>();
    final Map<String, Entry> contexts = new LinkedHashMap<>();
    String currentContext;
    Path currentContextFile;

    private Kubeconfig(List<Path> files) {
        this.files = List.copyOf(files);
    }

    /** Reads and merges {@code files} in order; each must exist. */
    static Kubeconfig load(List<Path> files) {
        Kubeconfig merged = new Kubeconfig(files);
        for (Path file : files) {
            merged.merge(file, parse(file));
        }
        return merged;
    }

    private static JsonNode parse(Path file) {
        byte[] bytes = ConfigFiles.read(file, "kubeconfig");
        JsonNode root;
        try {
            root = YAML.readTree(bytes);
        } catch (JacksonException e) {
            // The YAML parser's messages can quote the offending line, which may hold a token: keep the first
            // line of the problem and the position only.
            String problem = e.getOriginalMessage() == null
                    ? ""
                    : e.getOriginalMessage().lines().findFirst().orElse("");
            if (problem.length() > 80) {
                problem = problem.substring(0, 80);
            }
            TokenStreamLocation at = e.getLocation();
            String pos = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            throw new ConfigException("kubeconfig " + file + " is not valid YAML" + pos
                    + (problem.isBlank() || problem.contains(":") ? "" : " (" + problem + ")"));
        }
        if (root == null || root.isMissingNode() || root.isNull()) {
            return YAML.createObjectNode(); // an empty file is an empty config, as in kubectl
        }
        if (!root.isObject()) {
            throw new ConfigException(
                    "kubeconfig " + file + " is not a YAML mapping (apiVersion, kind, clusters, ...)");
        }
        return root;
    }

    private void merge(Path file, JsonNode root) {
        mergeSection(file, root, "clusters", "cluster", clusters);
        mergeSection(file, root, "users", "user", users);
        mergeSection(file, root, "contexts", "context", contexts);
        JsonNode current = root.get("current-context");
        if (current != null && !current.isNull()) {
            if (!current.isString()) {
                throw new ConfigException("kubeconfig " + file + ": current-context must be a string");
            }
            if (currentContext == null && !current.asString().isEmpty()) {
                currentContext = current.asString();
                currentContextFile = file;
            }
        }
    }

    private static void mergeSection(Path file, JsonNode root, String section, String field, Map<String, Entry> into) {
        JsonNode list = root.get(section);
        if (list == null || list.isNull()) {
            return;
        }
        if (!list.isArray()) {
            throw new ConfigException("kubeconfig " + file + ": " + section + " must be a list");
        }
        for (int i = 0; i < list.size(); i++) {
            JsonNode item = list.get(i);
            String at = "kubeconfig " + file + ": " + section + "[" + i + "]";
            if (!item.isObject()) {
                throw new ConfigException(at + " must be a mapping with name and " + field);
            }
            JsonNode name = item.get("name");
            if (name == null || !name.isString() || name.asString().isEmpty()) {
                throw new ConfigException(at + " has no name");
            }
            JsonNode body = item.get(field);
            if (body == null || body.isNull()) {
                body = YAML.createObjectNode(); // "user: {}" and a bare name are allowed
            }
            if (!body.isObject()) {
                throw new ConfigException(at + " (\"" + name.asString() + "\"): " + field + " must be a mapping");
            }
            into.putIfAbsent(name.asString(), new Entry(name.asString(), body, file, field));
        }
    }

    // ---- typed field access; every error names the entry and the field ----

    static String string(Entry e, String field) {
        JsonNode v = e.body().get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isValueNode() || v.isBinary()) {
            throw new ConfigException(e.where() + ": " + field + " must be a string");
        }
        String s = v.asString();
        return s.isEmpty() ? null : s;
    }

    static boolean bool(Entry e, String field) {
        JsonNode v = e.body().get(field);
        if (v == null || v.isNull()) {
            return false;
        }
        if (v.isBoolean()) {
            return v.booleanValue();
        }
        if (v.isString() && (v.asString().equals("true") || v.asString().equals("false"))) {
            return Boolean.parseBoolean(v.asString());
        }
        throw new ConfigException(e.where() + ": " + field + " must be true or false");
    }

    /** A {@code *-data} field: base64 of PEM. */
    static byte[] base64(Entry e, String field) {
        String s = string(e, field);
        if (s == null) {
            return null;
        }
        try {
            return Base64.getDecoder().decode(s.replaceAll("\\s", ""));
        } catch (IllegalArgumentException ex) {
            throw new ConfigException(e.where() + ": " + field + " is not valid base64");
        }
    }

    static List<String> strings(Entry e, JsonNode node, String field) {
        List<String> out = new ArrayList<>();
        if (node == null || node.isNull()) {
            return out;
        }
        if (!node.isArray()) {
            throw new ConfigException(e.where() + ": " + field + " must be a list");
        }
        for (JsonNode item : node) {
            if (!item.isValueNode()) {
                throw new ConfigException(e.where() + ": " + field + " must be a list of strings");
            }
            out.add(item.asString());
        }
        return out;
    }
}
