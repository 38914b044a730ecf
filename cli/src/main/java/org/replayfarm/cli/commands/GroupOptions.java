package org.replayfarm.cli.commands;

import java.util.ArrayList;
import java.util.List;
import org.replayfarm.evalnode.eval.GroupSelection;
import picocli.CommandLine.Option;

/** {@code --every-group | --group X,Y[,Z]...}, as replay eval, run and submit take them. */
final class GroupOptions {
    @Option(names = "--every-group", required = true, description = "Evaluate every group of the dispatch.")
    boolean every;

    @Option(names = "--group", required = true, paramLabel = "X,Y[,Z]", description = "A group to evaluate (repeatable).")
    List<String> groups = new ArrayList<>();

    /** @throws IllegalArgumentException for a group id that does not parse */
    GroupSelection selection() {
        return every ? GroupSelection.everyGroup() : GroupSelection.of(groups);
    }
}
