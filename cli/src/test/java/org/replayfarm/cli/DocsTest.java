package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.model.testing.Toolchain;
import picocli.CommandLine;

/**
 * README.md and docs/ stay true: every relative link names a file (and heading) that exists, every {@code ./replay}
 * line of an {@code sh} block parses with the real command line, every option a synopsis block names exists, and the
 * README is a front page that opens with the two set-up commands, the second being what {@code .ci/run} runs.
 */
@Tag("unit")
class DocsTest {
    static final Path ROOT = Toolchain.root();
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
    private static final Pattern OPTION = Pattern.compile("(?<![\\w-])--[a-z0-9][a-z0-9-]*");
    private static final Set<String> SHELL_OPERATORS = Set.of("&", "&&", "|", "||", ";", ">", ">>", "2>", "<");

    /** README.md, CHANGELOG.md and every page of docs/. */
    static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CHANGELOG.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** A fenced block: its info string ("sh", "text", "") and its lines, backslash continuations joined. */
    record Block(Path page, String info, List<String> lines) {
    }

    static List<Block> blocks(Path page) throws IOException {
        List<Block> out = new ArrayList<>();
        String info = null;
        List<String> lines = null;
        StringBuilder pending = new StringBuilder();
        for (String line : Files.readAllLines(page)) {
            if (line.startsWith("```")) {
                if (info == null) {
                    info = line.substring(3).strip();
                    lines = new ArrayList<>();
                } else {
                    out.add(new Block(page, info, lines));
                    info = null;
                }
                continue;
            }
            if (info == null) {
                continue;
            }
            if (line.endsWith("\\")) {
                pending.append(line, 0, line.length() - 1).append(' ');
                continue;
            }
            lines.add(pending.append(line).toString().strip());
            pending.setLength(0);
        }
        assertEquals(null, info, page + ": a fenced block is not closed");
        return out;
    }

    /** A shell line's words, quotes removed, up to a comment. */
    static List<String> words(String line) {
        List<String> w = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        char quote = 0;
        boolean any = false;
        for (int i = 0; i < line.length(); i++) {
            char ch = line.charAt(i);
            if (quote != 0) {
                if (ch == quote) {
                    quote = 0;
                } else {
                    cur.append(ch);
                }
            } else if (ch == '\'' || ch == '"') {
                quote = ch;
                any = true;
            } else if (ch == '#' && cur.length() == 0 && !any) {
                break;
            } else if (Character.isWhitespace(ch)) {
                if (cur.length() > 0 || any) {
                    w.add(cur.toString());
                }
                cur.setLength(0);
                any = false;
            } else {
                cur.append(ch);
            }
        }
        assertEquals(0, quote, "unbalanced quotes: " + line);
        if (cur.length() > 0 || any) {
            w.add(cur.toString());
        }
        return w;
    }

    /** The arguments of each {@code ./replay} command on a shell line (also inside {@code $(...)}). */
    static List<List<String>> replayCommands(String line) {
        List<List<String>> out = new ArrayList<>();
        List<String> w = words(line);
        for (int i = 0; i < w.size(); i++) {
            String word = w.get(i);
            boolean substituted = word.endsWith("$(./replay");
            if (!word.equals("./replay") && !substituted) {
                continue;
            }
            List<String> args = new ArrayList<>();
            for (int j = i + 1; j < w.size() && !SHELL_OPERATORS.contains(w.get(j)); j++) {
                String a = w.get(j);
                if (substituted && a.endsWith(")")) {
                    args.add(a.substring(0, a.length() - 1));
                    break;
                }
                args.add(a);
            }
            out.add(args);
        }
        return out;
    }

    @Test
    void the_readme_is_a_front_page_that_opens_with_the_two_set_up_commands() throws IOException {
        Path readme = ROOT.resolve("README.md");
        List<String> text = Files.readAllLines(readme);
        assertTrue(text.size() <= 260, "README.md has " + text.size() + " lines; details go to docs/");
        int firstBlock = text.indexOf("```sh");
        int firstSection = -1;
        for (int i = 0; i < text.size(); i++) {
            if (text.get(i).startsWith("## ")) {
                firstSection = i;
                break;
            }
        }
        assertTrue(firstBlock >= 0 && (firstSection < 0 || firstBlock < firstSection),
                "the set-up commands come first, before any section");
        List<String> setUp = blocks(readme).get(0).lines().stream().filter(l -> !l.isBlank()).toList();
        assertEquals(2, setUp.size(), "two set-up commands: " + setUp);

        List<String> run = words(setUp.get(0));
        assertEquals(List.of("./replay", "run"), run.subList(0, 2), "the first runs the main job: " + setUp.get(0));
        CommandLine.ParseResult parsed = Replay.commandLine().parseArgs(run.subList(1, run.size()).toArray(String[]::new));
        parsed.subcommand().matchedPositionals().forEach(p -> p.stringValues().forEach(capture ->
                assertTrue(Files.isRegularFile(ROOT.resolve(capture)), "the capture " + capture)));

        List<String> ci = Files.readAllLines(ROOT.resolve(".ci/run")).stream()
                .map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        String ciCommand = ci.get(ci.size() - 1);
        assertEquals(ciCommand, String.join(" ", words(setUp.get(1))),
                "the README's test command is what .ci/run runs");
        assertTrue(Files.isExecutable(ROOT.resolve(ciCommand)), ciCommand + " is an executable script");
    }

    @Test
    void every_relative_link_names_a_file_and_a_heading_that_exist() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path page : pages()) {
            boolean fenced = false;
            for (String line : Files.readAllLines(page)) {
                if (line.startsWith("```")) {
                    fenced = !fenced;
                    continue;
                }
                if (fenced) {
                    continue;
                }
                Matcher m = LINK.matcher(line.replaceAll("`[^`]*`", ""));
                while (m.find()) {
                    String target = m.group(1);
                    if (target.matches("[a-z]+:.*")) {
                        continue; // http:, https:, mailto:
                    }
                    int hash = target.indexOf('#');
                    String file = hash < 0 ? target : target.substring(0, hash);
                    Path to = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                    if (!Files.exists(to)) {
                        broken.add(ROOT.relativize(page) + ": " + target + " (no such file)");
                    } else if (hash >= 0 && to.toString().endsWith(".md")
                            && !anchors(to).contains(target.substring(hash + 1))) {
                        broken.add(ROOT.relativize(page) + ": " + target + " (no such heading in " + ROOT.relativize(to)
                                + ": " + anchors(to) + ")");
                    }
                }
            }
        }
        assertEquals(List.of(), broken);
    }

    /** The anchors GitHub gives a page's headings. */
    static Set<String> anchors(Path page) throws IOException {
        Set<String> out = new LinkedHashSet<>();
        boolean fenced = false;
        for (String line : Files.readAllLines(page)) {
            if (line.startsWith("```")) {
                fenced = !fenced;
            } else if (!fenced && line.startsWith("#")) {
                String heading = line.replaceFirst("^#+\\s*", "").strip();
                String slug = heading.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
                String unique = slug;
                for (int n = 1; out.contains(unique); n++) {
                    unique = slug + "-" + n;
                }
                out.add(unique);
            }
        }
        return out;
    }

    @Test
    void every_replay_command_of_an_sh_block_parses() throws IOException {
        List<String> refused = new ArrayList<>();
        int checked = 0;
        for (Path page : pages()) {
            for (Block b : blocks(page)) {
                if (!b.info().equals("sh")) {
                    continue;
                }
                for (String line : b.lines()) {
                    for (List<String> args : replayCommands(line)) {
                        checked++;
                        try {
                            CommandLine.ParseResult parsed = Replay.commandLine().parseArgs(args.toArray(String[]::new));
                            if (!parsed.hasSubcommand()) {
                                refused.add(ROOT.relativize(page) + ": " + line + ": no command");
                            }
                        } catch (CommandLine.ParameterException e) {
                            refused.add(ROOT.relativize(page) + ": " + line + ": " + e.getMessage());
                        }
                    }
                }
            }
        }
        assertTrue(checked >= 40, "the pages show ./replay commands: " + checked);
        assertEquals(List.of(), refused, "commands that ./replay would refuse (a synopsis goes into a text block)");
    }

    @Test
    void every_option_a_synopsis_shows_exists() throws IOException {
        List<String> unknown = new ArrayList<>();
        int checked = 0;
        for (Path page : pages()) {
            for (Block b : blocks(page)) {
                if (b.info().equals("sh")) {
                    continue;
                }
                for (String line : b.lines()) {
                    if (!line.startsWith("./replay ") && !line.startsWith("replay ")) {
                        continue;
                    }
                    List<String> w = words(line);
                    CommandLine cmd = Replay.commandLine();
                    int i = 1;
                    while (i < w.size() && cmd.getSubcommands().containsKey(w.get(i))) {
                        cmd = cmd.getSubcommands().get(w.get(i++));
                    }
                    if (cmd.getParent() == null) {
                        unknown.add(ROOT.relativize(page) + ": " + line + ": no command");
                        continue;
                    }
                    checked++;
                    Matcher m = OPTION.matcher(String.join(" ", w.subList(i, w.size())));
                    while (m.find()) {
                        if (cmd.getCommandSpec().findOption(m.group()) == null) {
                            unknown.add(ROOT.relativize(page) + ": " + cmd.getCommandName() + " has no " + m.group());
                        }
                    }
                }
            }
        }
        assertFalse(checked == 0, "the pages show synopses");
        assertEquals(List.of(), unknown);
    }
}
