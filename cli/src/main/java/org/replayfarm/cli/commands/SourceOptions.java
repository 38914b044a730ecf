package org.replayfarm.cli.commands;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.replayfarm.model.build.SourceBuild;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** The source options {@code capture build --source} and {@code capture native-run} share. */
public final class SourceOptions {
    @Option(names = "-O", paramLabel = "LEVEL", defaultValue = "2",
            description = "Device optimisation level for --source (0, 1, 2, 3, s, z; default ${DEFAULT-VALUE}).")
    public String optLevel;

    @Option(names = "-D", paramLabel = "NAME[=VALUE]", description = "Define a macro, on both sides (repeatable).")
    public List<String> defines = new ArrayList<>();

    @Option(names = "-I", paramLabel = "DIR", description = "Search DIR for includes, on both sides (repeatable; the "
            + "source's own folder is always searched).")
    public List<Path> includeDirs = new ArrayList<>();

    @Option(names = "-include", paramLabel = "FILE", description = "Include FILE before the source, on both sides (repeatable).")
    public List<Path> includeFiles = new ArrayList<>();

    @Option(names = "--cflag", paramLabel = "FLAG", description = "Another clang-19 flag for the device build (repeatable).")
    public List<String> cflags = new ArrayList<>();

    public SourceBuild build(CommandSpec spec, Path source, boolean wave64) {
        try {
            return new SourceBuild(SourceBuild.Language.of(source), wave64, optLevel, defines, includeDirs, includeFiles,
                    cflags);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
