package org.replayfarm.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code replay} command: every tool of the farm, and (later) every node role, in one distribution. */
@Command(name = "replay", mixinStandardHelpOptions = true, versionProvider = Replay.Version.class,
        description = "Replay RDNA 2 dispatch captures on a host model and compare them with the device.",
        subcommands = {CaptureCommand.class, ExampleCommand.class, InspectCommand.class, DisasmCommand.class, TranslateCommand.class, EvalCommand.class,
                RunCommand.class, NodeCommand.class, BenchCommand.class, BenchFarmCommand.class, BenchTranslateCommand.class,
                SubmitCommand.class, WatchCommand.class, ResultsCommand.class, JobsCommand.class, CancelCommand.class, PurgeCommand.class, StatusCommand.class, ExplainCommand.class, CommandLine.HelpCommand.class})
public final class Replay {
    /** Exit status: no differences / differences found / error (DESIGN.md, "Running it"). */
    public static final int EXIT_OK = 0;
    public static final int EXIT_DIFFERENCES = 1;
    public static final int EXIT_ERROR = 2;

    public static void main(String[] args) {
        // initialise logging before any other thread logs (else SLF4J reports calls it had to replay)
        org.slf4j.LoggerFactory.getILoggerFactory();
        System.exit(commandLine().execute(args));
    }

    /** The configured command line: errors print one clear line and exit with status 2. */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Replay());
        cli.setExecutionExceptionHandler((e, line, parsed) -> {
            PrintWriter err = line.getErr();
            err.println("replay: error: " + describe(e));
            return EXIT_ERROR;
        });
        cli.setParameterExceptionHandler((e, args) -> {
            CommandLine line = e.getCommandLine();
            line.getErr().println("replay: " + e.getMessage());
            line.getErr().println("Try '" + line.getCommandSpec().qualifiedName() + " --help'.");
            return EXIT_ERROR;
        });
        return cli;
    }

    /** One line that says what went wrong, in the user's terms. */
    static String describe(Exception e) {
        if (e instanceof java.nio.file.NoSuchFileException missing) {
            return "no such file: " + missing.getFile();
        }
        if (e instanceof java.nio.file.AccessDeniedException denied) {
            return "permission denied: " + denied.getFile();
        }
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Replay.class.getPackage().getImplementationVersion();
            return new String[] {"replay " + (v == null ? "development build" : v)};
        }
    }
}
