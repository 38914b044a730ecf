package org.replayfarm.gpunode.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An exec: command is split into words as a POSIX shell splits them (XCU 2.2: the expected words of the quoting and
 * escaping tests are what dash prints for the same text, {@code dash -c "printf '[%s]' TEXT"}), with nothing
 * expanded, and {@code {capture}} and {@code {out}} put in wherever they stand in a word.
 */
@Tag("unit")
class ShellWordsTest {
    @Test
    void words_split_on_blanks_and_quotes_keep_what_they_hold() {
        assertEquals(List.of("emu", "--run", "a.capture"), ShellWords.split("  emu\t--run  a.capture  "));
        // one command: a newline separates words as a blank does (a shell would start a second command)
        assertEquals(List.of("emu", "a.capture"), ShellWords.split("emu\na.capture\n"));
        assertEquals(List.of("my emu", "it's", "x\"y"), ShellWords.split("'my emu' \"it's\" 'x\"y'"));
        assertEquals(List.of("ab", "", "", "c d"), ShellWords.split("a'b' '' \"\" c' 'd"));
    }

    @Test
    void backslashes_escape_as_in_the_shell() {
        // outside quotes any character; inside double quotes only " \ $ ` and a newline; inside single quotes none
        assertEquals(List.of("a b", "$HOME", "x"), ShellWords.split("a\\ b \\$HOME \\x"));
        assertEquals(List.of("q\"b\\d$e`f\\g"), ShellWords.split("\"q\\\"b\\\\d\\$e\\`f\\g\""));
        assertEquals(List.of("a\\b"), ShellWords.split("'a\\b'"));
        assertEquals(List.of("ab", "cd"), ShellWords.split("a\\\nb \"c\\\nd\"")); // backslash-newline joins the lines
    }

    @Test
    void nothing_is_expanded() {
        assertEquals(List.of("$HOME", "~", "*.bin", "${X:-y}", "$(id)", "`id`"),
                ShellWords.split("$HOME ~ *.bin ${X:-y} \"$(id)\" '`id`'"));
    }

    @Test
    void capture_and_out_are_put_in_inside_each_word() {
        List<String> argv = ExecBackend.argv(ShellWords.split("emu --in={capture} -o '{out}/x y' {out}{capture} {other}"),
                Path.of("/w/capture.capture"), Path.of("/w/out"));
        assertEquals(List.of("emu", "--in=/w/capture.capture", "-o", "/w/out/x y", "/w/out/w/capture.capture", "{other}"),
                argv);
    }

    @Test
    void open_quotes_and_shell_syntax_are_errors_naming_where() {
        assertEquals("the single quote at character 5 is not closed",
                assertThrows(IllegalArgumentException.class, () -> ShellWords.split("emu 'a b")).getMessage());
        assertEquals("the double quote at character 5 is not closed",
                assertThrows(IllegalArgumentException.class, () -> ShellWords.split("emu \"a \\\" b")).getMessage());
        assertEquals("the backslash at character 5 ends the command and escapes nothing",
                assertThrows(IllegalArgumentException.class, () -> ShellWords.split("emu \\")).getMessage());
        String pipe = assertThrows(IllegalArgumentException.class, () -> ShellWords.split("emu {capture} > log")).getMessage();
        assertTrue(pipe.startsWith("'>' at character 15 is shell syntax") && pipe.contains("sh -c"), pipe);
        assertEquals(List.of("emu", ">", "a|b"), ShellWords.split("emu '>' a\\|b"));
        assertEquals("the command names no program",
                assertThrows(IllegalArgumentException.class, () -> ShellWords.split(" \t ")).getMessage());
    }

    @Test
    void the_device_spelling_refuses_an_open_quote_when_parsed() {
        DeviceChoice exec = DeviceChoice.parse("exec:sh -c 'exit 0' sh {capture}");
        assertEquals(DeviceChoice.Kind.EXEC, exec.kind());
        assertEquals("sh -c 'exit 0' sh {capture}", exec.label());
        assertEquals("exec:sh -c 'exit 0' sh {capture}", exec.spelling());
        String open = assertThrows(IllegalArgumentException.class, () -> DeviceChoice.parse("exec:emu 'x")).getMessage();
        assertEquals("--device 'exec:emu 'x': the single quote at character 5 is not closed", open);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DeviceChoice.parse("exec:")).getMessage()
                .contains("exec:COMMAND"));
    }
}
