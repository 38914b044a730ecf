package org.replayfarm.gpunode.device;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The programs a coordinator lets jobs sent over its API run as their device ({@code --device exec:COMMAND}),
 * as {@code replay node --allow-exec-device} names them, each resolved to its absolute real path when the node
 * starts: a command's program (its first word) is allowed when it resolves to one of them. A name without a
 * {@code /} is looked up on {@code PATH} as the process would be started; one with a {@code /} is a path (relative
 * to this process's folder). The list says nothing about the program's arguments: allowing a shell allows any command.
 */
public record ExecAllowList(List<Path> programs) {
    /** No program: every {@code exec:} job is refused. */
    public static final ExecAllowList NONE = new ExecAllowList(List.of());

    public ExecAllowList {
        programs = List.copyOf(programs);
    }

    /**
     * The programs named, resolved.
     *
     * @throws IllegalArgumentException naming a program that is not there (or not on PATH) or not executable
     */
    public static ExecAllowList of(List<String> names) {
        List<Path> programs = new ArrayList<>();
        for (String n : names) {
            if (n.isBlank()) {
                continue;
            }
            programs.add(locate(n.trim()).orElseThrow(() -> new IllegalArgumentException("--allow-exec-device " + n.trim()
                    + ": " + (n.contains("/") ? "no such executable file" : "no executable of that name on PATH"))));
        }
        return new ExecAllowList(programs);
    }

    /**
     * Refuses a command whose program is not on the list, saying why.
     *
     * @throws IllegalArgumentException naming the program and the programs allowed (or that none is)
     */
    public void check(String command) {
        String program = ShellWords.split(command).get(0);
        String why = "exec:COMMAND runs a program on the coordinator's machine, which a job sent over the API may do "
                + "only when the coordinator was started with --allow-exec-device naming that program";
        if (programs.isEmpty()) {
            throw new IllegalArgumentException(why + "; this one allows none (compare on your machine with replay run "
                    + "--device exec:COMMAND instead)");
        }
        // a program named through {capture} or {out} is whatever the run puts there, not what was checked
        boolean placeholder = program.contains("{capture}") || program.contains("{out}");
        Optional<Path> found = placeholder ? Optional.empty() : locate(program);
        if (found.isEmpty() || !programs.contains(found.get())) {
            throw new IllegalArgumentException("the program '" + program + "'" + found.map(p -> " (" + p + ")")
                    .orElse(placeholder ? " (named through {capture} or {out})" : " (no such executable here)")
                    + " is not one this coordinator allows: " + why + "; allowed: " + programs);
        }
    }

    /** The absolute real path of the executable {@code program} names (looked up on PATH without a '/'). */
    static Optional<Path> locate(String program) {
        List<Path> candidates = new ArrayList<>();
        try {
            if (program.contains("/")) {
                candidates.add(Path.of(program));
            } else {
                String path = System.getenv("PATH");
                for (String dir : (path == null ? "" : path).split(File.pathSeparator, -1)) {
                    candidates.add(Path.of(dir.isEmpty() ? "." : dir).resolve(program)); // an empty entry is the folder
                }
            }
        } catch (java.nio.file.InvalidPathException e) {
            return Optional.empty(); // a NUL in the name: no file has it
        }
        for (Path c : candidates) {
            if (Files.isRegularFile(c) && Files.isExecutable(c)) {
                try {
                    return Optional.of(c.toRealPath());
                } catch (IOException e) {
                    // gone meanwhile: the next candidate
                }
            }
        }
        return Optional.empty();
    }
}
