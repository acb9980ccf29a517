package io.kubeloop.apiserver.internal.auth;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Static bearer tokens, as kube-apiserver's {@code --token-auth-file}: each token stands for one user with
 * its groups. Immutable; {@link #with} and {@link #withFile} return extended copies.
 *
 * <p>Invariant: the tokens themselves are not kept — only their SHA-256 digests, which index the users — so
 * no toString, log line or heap dump of this object reveals one. A token is 1 to 1024 printable ASCII
 * characters without spaces, commas, quotes or backslashes, so it survives a CSV file and a YAML kubeconfig.
 */
public final class StaticTokens {

    public static final StaticTokens NONE = new StaticTokens(Map.of());

    private final Map<String, UserInfo> byDigest;

    private StaticTokens(Map<String, UserInfo> byDigest) {
        this.byDigest = Map.copyOf(byDigest);
    }

    /** These tokens plus {@code token} for {@code user} (in {@code groups} and system:authenticated). */
    public StaticTokens with(String user, String token, List<String> groups) {
        return with(user, "", token, groups, "token for user " + user);
    }

    private StaticTokens with(String user, String uid, String token, List<String> groups, String where) {
        if (user == null || user.isBlank()) {
            throw new IllegalArgumentException(where + ": the user name is empty");
        }
        try {
            checkToken(token);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage());
        }
        Set<String> all = new LinkedHashSet<>();
        for (String g : groups) {
            if (g == null || g.isBlank()) {
                throw new IllegalArgumentException(where + ": a group name is empty");
            }
            all.add(g.strip());
        }
        all.add(UserInfo.SYSTEM_AUTHENTICATED);
        String digest = digest(token);
        UserInfo existing = byDigest.get(digest);
        if (existing != null) {
            throw new IllegalArgumentException(where + ": the same token is already given to user " + existing.name());
        }
        Map<String, UserInfo> copy = new HashMap<>(byDigest);
        copy.put(digest, new UserInfo(user, uid, new ArrayList<>(all), Map.of()));
        return new StaticTokens(copy);
    }

    /**
     * These tokens plus those in a kube-apiserver static token file: CSV lines {@code token,user,uid} with an
     * optional fourth column of groups, quoted when there are several ({@code "group1,group2"}). Blank lines
     * are skipped. Errors name the file and line, never the token.
     */
    public StaticTokens withFile(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read the token file " + file + ": " + e.getClass().getSimpleName(), e);
        }
        StaticTokens tokens = this;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank()) {
                continue;
            }
            String where = "token file " + file + " line " + (i + 1);
            List<String> columns = csv(line, where);
            if (columns.size() < 3) {
                throw new IllegalArgumentException(where + ": expected token,user,uid[,\"group1,group2\"], found "
                        + columns.size() + " column(s)");
            }
            List<String> groups = new ArrayList<>();
            if (columns.size() > 3 && !columns.get(3).isBlank()) {
                for (String g : columns.get(3).split(",")) {
                    groups.add(g.strip());
                }
            }
            tokens = tokens.with(
                    columns.get(1).strip(),
                    columns.get(2).strip(),
                    columns.get(0).strip(),
                    groups,
                    where);
        }
        return tokens;
    }

    /** Splits one RFC 4180 CSV line (double quotes, {@code ""} as an escaped quote). */
    private static List<String> csv(String line, String where) {
        List<String> out = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    field.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    field.append(c);
                }
            } else if (c == '"' && field.toString().isBlank()) {
                quoted = true;
            } else if (c == ',') {
                out.add(field.toString());
                field.setLength(0);
            } else {
                field.append(c);
            }
        }
        if (quoted) {
            throw new IllegalArgumentException(where + ": a quoted column is not closed");
        }
        out.add(field.toString());
        return out;
    }

    /** The user a presented token stands for. */
    public Optional<UserInfo> user(String token) {
        return Optional.ofNullable(byDigest.get(digest(token)));
    }

    public boolean isEmpty() {
        return byDigest.isEmpty();
    }

    /**
     * Checks that {@code token} can be a static token; the message says what is wrong without repeating it.
     *
     * @throws IllegalArgumentException if it is empty, too long, or holds a character outside printable
     *     ASCII or one of space, comma, double quote and backslash
     */
    public static void checkToken(String token) {
        if (token == null || token.isEmpty()) {
            throw new IllegalArgumentException("the token is empty");
        }
        if (token.length() > 1024) {
            throw new IllegalArgumentException("the token is longer than 1024 characters");
        }
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            if (c <= ' ' || c >= 0x7F || c == ',' || c == '"' || c == '\\') {
                throw new IllegalArgumentException("the token has a character that is not allowed at position "
                        + (i + 1) + " (allowed: printable ASCII except space, comma, double quote and backslash)");
            }
        }
    }

    private static String digest(String token) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    @Override
    public String toString() {
        return "StaticTokens[" + byDigest.size() + " token(s)]";
    }
}
