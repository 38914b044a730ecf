package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.Toolchain;

/**
 * Every package of every module's main sources says what it holds: a folder under {@code MODULE/src/main/java} that
 * holds .java files has a {@code package-info.java}, and that file has a javadoc comment (not empty) right before its
 * package declaration.
 */
@Tag("unit")
class PackageInfoTest {
    static final Path ROOT = Toolchain.root();
    /** A package declaration. */
    private static final Pattern PACKAGE = Pattern.compile("package\\s+[\\w.]+\\s*;");
    /** Annotations (with or without arguments) and blanks: all that may stand between the javadoc and the package. */
    private static final Pattern ANNOTATIONS = Pattern.compile("(\\s*@[\\w.]+(\\s*\\([^)]*\\))?)*\\s*");

    @Test
    void everyMainPackageHasAPackageInfoWithAJavadoc() throws IOException {
        List<Path> roots = sourceRoots(ROOT);
        assertTrue(roots.size() >= 5, "expected every module's src/main/java under " + ROOT + ", found " + roots);
        List<String> problems = new ArrayList<>();
        for (Path root : roots) {
            problems.addAll(problems(ROOT, root));
        }
        assertTrue(problems.isEmpty(), problems.size() + " package(s) do not say what they hold (a package-info.java "
                + "with a javadoc comment: /** ... */ package x.y;):\n  " + String.join("\n  ", problems));
    }

    @Test
    void theCheckNamesAMissingPackageInfoAndOneWithoutAJavadoc(@TempDir Path dir) throws IOException {
        Path src = dir.resolve("m/src/main/java");
        write(src.resolve("a/A.java"), "package a; class A {}");
        write(src.resolve("a/package-info.java"), "/** Holds A. */\npackage a;\n");
        write(src.resolve("a/b/B.java"), "package a.b; class B {}");
        write(src.resolve("a/c/C.java"), "package a.c; class C {}");
        write(src.resolve("a/c/package-info.java"), "/* Not a javadoc. */\npackage a.c;\n");
        write(src.resolve("a/d/package-info.java"), "/**\n *\n */\npackage a.d;\n");
        write(src.resolve("a/e/E.java"), "package a.e; class E {}");
        write(src.resolve("a/e/package-info.java"), "// licence\n/**\n * Holds E.\n */\n@Deprecated\npackage a.e;\n");
        write(src.resolve("a/f/package-info.java"), "/** Holds F. */\nimport x.Y;\npackage a.f;\n");
        assertEquals(List.of(src), sourceRoots(dir));
        assertEquals(List.of(
                "m/src/main/java/a/b: .java files but no package-info.java",
                "m/src/main/java/a/c/package-info.java: no javadoc comment before the package declaration",
                "m/src/main/java/a/d/package-info.java: no javadoc comment before the package declaration",
                "m/src/main/java/a/f/package-info.java: no javadoc comment before the package declaration"),
                problems(dir, src));
    }

    @Test
    void aJavadocIsTheCommentRightBeforeThePackage() {
        assertTrue(hasJavadoc("/** Holds x. */ package x;"));
        assertTrue(hasJavadoc("/*\n * Licence.\n */\n/**\n * Holds x.\n */\n@Deprecated\npackage x.y;\n"));
        assertFalse(hasJavadoc("package x;"));
        assertFalse(hasJavadoc("// Holds x.\npackage x;"));
        assertFalse(hasJavadoc("/* Holds x. */ package x;"));
        assertFalse(hasJavadoc("/** */ package x;"));
        assertFalse(hasJavadoc("/** Holds x. */ /* Licence. */ package x;"));
        assertFalse(hasJavadoc("/** Holds x. */"));
        assertTrue(hasJavadoc("/** Holds files matching {@code src/main/*.java}. */ package x;"));
        assertFalse(hasJavadoc("/** Holds x. */ class Y {} package x;"));
    }

    /** Every {@code MODULE/src/main/java} folder of the repository, in name order. */
    static List<Path> sourceRoots(Path repo) throws IOException {
        try (Stream<Path> modules = Files.list(repo)) {
            return modules.map(m -> m.resolve("src/main/java")).filter(Files::isDirectory).sorted().toList();
        }
    }

    /**
     * What is wrong under one source root: a line per package folder or package-info.java, in path order, each
     * named relative to {@code base}.
     */
    static List<String> problems(Path base, Path sourceRoot) throws IOException {
        List<String> problems = new ArrayList<>();
        List<Path> folders;
        try (Stream<Path> walk = Files.walk(sourceRoot)) {
            folders = walk.filter(Files::isDirectory).sorted().toList();
        }
        for (Path folder : folders) {
            Path info = folder.resolve("package-info.java");
            if (Files.isRegularFile(info)) {
                if (!hasJavadoc(Files.readString(info))) {
                    problems.add(base.relativize(info) + ": no javadoc comment before the package declaration");
                }
            } else if (holdsJavaFiles(folder)) {
                problems.add(base.relativize(folder) + ": .java files but no package-info.java");
            }
        }
        return problems;
    }

    private static boolean holdsJavaFiles(Path folder) throws IOException {
        try (Stream<Path> files = Files.list(folder)) {
            return files.anyMatch(f -> Files.isRegularFile(f) && f.getFileName().toString().endsWith(".java"));
        }
    }

    /**
     * Whether a package-info.java's package declaration is preceded by a javadoc comment with some text in it, with
     * nothing but annotations and blanks between the comment and the declaration.
     */
    static boolean hasJavadoc(String source) {
        String javadoc = null; // the text of the last comment, when that is a javadoc
        int afterLastComment = 0;
        int i = 0;
        while (i < source.length()) {
            if (source.startsWith("//", i)) {
                int newline = source.indexOf('\n', i);
                i = newline < 0 ? source.length() : newline;
                javadoc = null;
                afterLastComment = i;
            } else if (source.startsWith("/*", i)) {
                int close = source.indexOf("*/", i + 2);
                if (close < 0) {
                    return false;
                }
                javadoc = source.startsWith("/**", i) && close > i + 2 ? source.substring(i + 3, close) : null;
                i = close + 2;
                afterLastComment = i;
            } else if (source.startsWith("package", i) && PACKAGE.matcher(source).region(i, source.length()).lookingAt()
                    && (i == 0 || !Character.isJavaIdentifierPart(source.charAt(i - 1)))) {
                return javadoc != null && !javadoc.replaceAll("(?m)^\\s*\\*", "").isBlank()
                        && ANNOTATIONS.matcher(source.substring(afterLastComment, i)).matches();
            } else {
                i++;
            }
        }
        return false;
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }
}
