package io.kubeloop.apiserver.internal.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kube-apiserver's static token file and the token rules, table by table. */
class StaticTokensTest {

    @TempDir
    Path dir;

    private StaticTokens file(String content) throws Exception {
        Path f = dir.resolve("tokens.csv");
        Files.writeString(f, content);
        return StaticTokens.NONE.withFile(f);
    }

    @Test
    void readsKubeApiserversFormat() throws Exception {
        StaticTokens tokens = file("""
                t1,alice,uid-1,"devs,ops"
                t2,bob,uid-2,single

                  t3 , carol ,, " qa , dev "
                t4,dave,uid-4,"",ignored-extra-column
                "t5",erin,"uid ""5""\"
                """);
        Map<String, String> expected = Map.of(
                "t1", "alice|uid-1|[devs, ops, system:authenticated]",
                "t2", "bob|uid-2|[single, system:authenticated]",
                "t3", "carol||[qa, dev, system:authenticated]",
                "t4", "dave|uid-4|[system:authenticated]",
                "t5", "erin|uid \"5\"|[system:authenticated]");
        expected.forEach(
                (token, user) -> assertThat(tokens.user(token).map(u -> u.name() + "|" + u.uid() + "|" + u.groups()))
                        .as(token)
                        .hasValue(user));
        assertThat(tokens.user("t6")).isEmpty();
        assertThat(tokens.toString()).isEqualTo("StaticTokens[5 token(s)]");
    }

    @Test
    void badFilesNameTheLine() {
        Map<String, String> cases = Map.of(
                "ok,a,1\nlonely,b\n", "line 2: expected token,user,uid",
                "ok,,1\n", "line 1: the user name is empty",
                "\"open,a,1\n", "line 1: a quoted column is not closed",
                "x,a,1\nx,b,2\n", "line 2: the same token is already given to user a",
                "has space,a,1\n", "line 1: the token has a character that is not allowed at position 4",
                ",a,1\n", "line 1: the token is empty");
        cases.forEach((content, message) -> assertThatThrownBy(() -> file(content))
                .as(content)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message));
        assertThatThrownBy(() -> StaticTokens.NONE.withFile(dir.resolve("missing.csv")))
                .hasMessageContaining("cannot read the token file");
    }

    @Test
    void tokensAreCheckedWithoutBeingRepeated() {
        for (String bad : List.of("", "a b", "a,b", "a\"b", "a\\b", "caf\u00e9", "x".repeat(1025))) {
            assertThatThrownBy(() -> StaticTokens.NONE.with("u", bad, List.of()))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("token for user u: the token")
                    .satisfies(e -> {
                        if (bad.length() > 1) {
                            assertThat(e.getMessage()).doesNotContain(bad);
                        }
                    });
        }
        StaticTokens.checkToken("abc.DEF-123_~:/+=");
    }
}
