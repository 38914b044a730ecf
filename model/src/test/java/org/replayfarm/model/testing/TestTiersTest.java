package org.replayfarm.model.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Every test class of every module carries exactly one tier tag, so {@code ./run-tests -P quick} (the unit tier)
 * and {@code -Dgroups=...} select what a developer means: {@code unit} (in one JVM, no cluster, no browser, no
 * corpus of compiled kernels), {@code cluster} (Akka nodes or node processes on loopback), {@code browser}
 * (headless Chromium), {@code corpus} (kernels compiled by clang-19, llvm-mc-19, nvcc or g++ in bulk, the
 * examples rebuilt). A class without one would run in no tier but the whole suite.
 */
@Tag("unit")
class TestTiersTest {
    static final Set<String> TIERS = Set.of("unit", "cluster", "browser", "corpus");
    private static final Pattern TAG = Pattern.compile("^@Tag\\(\"([a-z]+)\"\\)\\s*$", Pattern.MULTILINE);
    private static final Pattern TEST = Pattern.compile("@(Test|ParameterizedTest|TestFactory|RepeatedTest)\\b");

    @Test
    void every_test_class_has_exactly_one_tier_tag() throws IOException {
        List<String> wrong = new ArrayList<>();
        int classes = 0;
        for (String module : List.of("proto", "model", "eval-node", "gpu-node", "coordinator", "cli")) {
            Path tests = Toolchain.root().resolve(module).resolve("src/test/java");
            if (!Files.isDirectory(tests)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(tests)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    String source = Files.readString(f);
                    if (!TEST.matcher(source).find()) {
                        continue; // a helper, not a test class
                    }
                    classes++;
                    List<String> tags = new ArrayList<>();
                    Matcher m = TAG.matcher(source);
                    while (m.find()) {
                        tags.add(m.group(1));
                    }
                    if (tags.size() != 1 || !TIERS.contains(tags.get(0))) {
                        wrong.add(Toolchain.root().relativize(f) + " " + tags);
                    }
                }
            }
        }
        assertTrue(classes > 100, "the walk found the suite's test classes: " + classes);
        assertEquals(List.of(), wrong, "test classes without exactly one tier tag (@Tag(\"unit|cluster|browser|corpus\") "
                + "on its own line above the class)");
    }
}
