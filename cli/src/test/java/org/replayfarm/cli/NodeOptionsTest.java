package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import org.replayfarm.cli.commands.NodeCommand;

/**
 * Options refused in one line before a node (or an evaluation) starts, and {@code replay node --help} lists every environment variable an option of the node reads (docs/operations.md
 * sends readers there): REPLAY_JOB_RETENTION, REPLAY_MAX_FINISHED_JOBS and REPLAY_API_TOKEN_FILE worked but
 * were not listed.
 */
@Tag("cluster")
class NodeOptionsTest {
    private static final Pattern ENV = Pattern.compile("\\$\\{env:(REPLAY_[A-Z_]+)");

    @Test
    void the_help_names_every_variable_an_option_reads() {
        CommandLine node = Replay.commandLine("node").getSubcommands().get("node");
        node.setInterpolateVariables(false); // the default values as written: ${env:NAME...}
        List<String> read = new ArrayList<>();
        for (OptionSpec o : node.getCommandSpec().options()) {
            Matcher m = ENV.matcher(String.valueOf(o.defaultValue()));
            while (m.find()) {
                read.add(m.group(1));
            }
        }
        assertTrue(read.size() >= 20, "the node's options read its environment: " + read);
        assertTrue(read.contains("REPLAY_JOB_RETENTION") && read.contains("REPLAY_MAX_FINISHED_JOBS"), read.toString());
        node.setInterpolateVariables(true);
        String help = node.getUsageMessage(CommandLine.Help.Ansi.OFF);
        List<String> missing = read.stream().filter(v -> !Pattern.compile("\\b" + v + "\\b").matcher(help).find()).toList();
        assertEquals(List.of(), missing, "variables the node reads that its --help does not name");
    }

    /**
     * A bad seed, port, thread count or retention is refused in one line naming the option, exit 2, before anything
     * starts: a seed without a port said only "java.lang.RuntimeException", one with port 99999 started a node that
     * logged Akka stack traces forever, --threads 100000 ran out of native threads, "--job-retention 5" meant 5 ms.
     */
    @Test
    void bad_values_are_refused_naming_the_option() {
        refused("--seed 'nocolon': expected HOST:PORT", "node", "--role", "eval", "--seed", "nocolon");
        refused("--seed '127.0.0.1:99999': port 99999 is not 1 through 65535", "node", "--role", "eval", "--seed",
                "127.0.0.1:99999");
        refused("--seed '127.0.0.1:x': the port is not a number", "node", "--role", "eval", "--seed", "127.0.0.1:x");
        refused("--port 70000: a port is 0 through 65535", "node", "--role", "eval", "--port", "70000");
        refused("--http-port 123456: a port is 0 through 65535", "node", "--role", "coordinator", "--http-port", "123456");
        refused("--threads 100000: at most 1024", "node", "--role", "eval", "--threads", "100000");
        refused("--job-retention 5: give a unit, e.g. 5d, 5h or 5m", "node", "--role", "coordinator",
                "--job-retention", "5");
        String saxpy = org.replayfarm.model.testing.Toolchain.root().resolve("examples/saxpy/saxpy.capture").toString();
        refused("--threads 100000: at most 1024", "eval", saxpy, "--every-group", "--threads", "100000", "--out", "x");
        refused("--evaluators 5000: at most 1024", "run", saxpy, "--every-group", "--evaluators", "5000", "--out", "x");
        refused("--sgprs -1: must not be negative", "capture", "build", "--asm", "k.s", "--groups", "1", "--group-size",
                "1", "--sgprs", "-1", "-o", "k.capture");
    }

    /**
     * An --out that is a file, or a capture that is a folder, is refused in one line before any work (run evaluated
     * every group first, then failed with "FileAlreadyExistsException"; eval said only the path; a folder as the
     * capture gave "Is a directory").
     */
    @Test
    void an_out_that_is_a_file_or_a_capture_that_is_a_folder_is_refused_at_once(@org.junit.jupiter.api.io.TempDir
            java.nio.file.Path dir) throws Exception {
        String saxpy = org.replayfarm.model.testing.Toolchain.root().resolve("examples/saxpy/saxpy.capture").toString();
        java.nio.file.Path file = java.nio.file.Files.writeString(dir.resolve("notes.txt"), "mine");
        String says = "--out " + file + ": exists and is not a folder";
        refused(says, "eval", saxpy, "--every-group", "--out", file.toString());
        refused(says, "run", saxpy, "--every-group", "--out", file.toString());
        refused(says, "translate", saxpy, "--out", file.toString());
        refused(says, "capture", "export", saxpy, "--out", file.toString());
        assertEquals("mine", java.nio.file.Files.readString(file), "the file is left as it was");
        CliRun folder = CliRun.of("inspect", dir.toString());
        assertEquals(2, folder.exitCode());
        assertEquals("replay: error: " + dir + " is a folder, not a capture file", folder.err().trim());
    }

    private static void refused(String message, String... args) {
        CliRun r = CliRun.of(args);
        assertEquals(2, r.exitCode(), r.out() + r.err());
        assertTrue(r.err().startsWith("replay " + args[0] + ": " + message) || r.err().startsWith("replay: " + message),
                r.err());
        assertTrue(!r.err().contains("\tat ") && !r.err().contains("Exception"), r.err());
    }

    @Test
    void artery_is_checked_free_on_its_bind_port_when_the_config_sets_one_else_on_the_canonical_port() {
        com.typesafe.config.Config none = com.typesafe.config.ConfigFactory.empty();
        assertEquals(25520, NodeCommand.arteryBindPort(none, 25520));
        assertEquals(25520, NodeCommand.arteryBindPort(com.typesafe.config.ConfigFactory.parseString(
                "akka.remote.artery.bind.port = \"\""), 25520), "an empty bind port is the canonical one");
        assertEquals(25521, NodeCommand.arteryBindPort(com.typesafe.config.ConfigFactory.parseString(
                "akka.remote.artery.bind.port = 25521"), 25520), "behind a proxy or a NAT Artery binds its bind port");
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> NodeCommand.arteryBindPort(com.typesafe.config.ConfigFactory.parseString(
                        "akka.remote.artery.bind.port = twelve"), 25520));
        assertTrue(e.getMessage().contains("akka.remote.artery.bind.port 'twelve'"), e.getMessage());
    }
}
