package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code replay node --help} lists every environment variable an option of the node reads (README, "Running the
 * farm", sends readers there): REPLAY_JOB_RETENTION, REPLAY_MAX_FINISHED_JOBS and REPLAY_API_TOKEN_FILE worked but
 * were not listed.
 */
class NodeHelpTest {
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
}
