package org.replayfarm.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import org.replayfarm.cli.commands.AmberCommand;
import org.replayfarm.cli.commands.BenchCommand;
import org.replayfarm.cli.commands.BenchFarmCommand;
import org.replayfarm.cli.commands.BenchFirstDivergenceCommand;
import org.replayfarm.cli.commands.BenchTranslateCommand;
import org.replayfarm.cli.commands.CancelCommand;
import org.replayfarm.cli.commands.CaptureCommand;
import org.replayfarm.cli.commands.DaemonCommand;
import org.replayfarm.cli.commands.DisasmCommand;
import org.replayfarm.cli.commands.EvalCommand;
import org.replayfarm.cli.commands.ExampleCommand;
import org.replayfarm.cli.commands.ExplainCommand;
import org.replayfarm.cli.commands.InspectCommand;
import org.replayfarm.cli.commands.JobsCommand;
import org.replayfarm.cli.commands.MutantRunCommand;
import org.replayfarm.cli.commands.NodeCommand;
import org.replayfarm.cli.commands.PurgeCommand;
import org.replayfarm.cli.commands.ResultsCommand;
import org.replayfarm.cli.commands.RunCommand;
import org.replayfarm.cli.commands.StatusCommand;
import org.replayfarm.cli.commands.SubmitCommand;
import org.replayfarm.cli.commands.TranslateCommand;
import org.replayfarm.cli.commands.WatchCommand;
import org.replayfarm.cli.daemon.DaemonClient;

/** The {@code replay} command: every tool of the farm, and (later) every node role, in one distribution. */
@Command(name = "replay", mixinStandardHelpOptions = true, versionProvider = Replay.Version.class,
        description = "Replay RDNA 2 dispatch captures on a host model and compare them with the device.")
public final class Replay {
    /** Every subcommand, in the order {@code replay --help} lists them. */
    static final java.util.List<Class<?>> SUBCOMMANDS = java.util.List.of(CaptureCommand.class, AmberCommand.class, ExampleCommand.class,
            InspectCommand.class, DisasmCommand.class, TranslateCommand.class, EvalCommand.class, RunCommand.class,
            NodeCommand.class, BenchCommand.class, BenchFarmCommand.class, BenchTranslateCommand.class, BenchFirstDivergenceCommand.class, SubmitCommand.class,
            WatchCommand.class, ResultsCommand.class, JobsCommand.class, CancelCommand.class, PurgeCommand.class, StatusCommand.class,
            ExplainCommand.class, MutantRunCommand.class,
            DaemonCommand.class, CommandLine.HelpCommand.class);

    /** Exit status: no differences / differences found / error (DESIGN.md, "Running it"). */
    public static final int EXIT_OK = 0;
    public static final int EXIT_DIFFERENCES = 1;
    public static final int EXIT_ERROR = 2;

    public static void main(String[] args) {
        // numbers in reports, files and messages read the same on every machine: a comma-decimal locale wrote
        // time="1,234" into junit.xml (the locale's language and file-name encoding are left as they are)
        java.util.Locale.setDefault(java.util.Locale.Category.FORMAT, java.util.Locale.ROOT);
        String first = args.length > 0 ? args[0] : null;
        if ("run".equals(first) && DaemonClient.wanted(args)) {
            // the run daemon's client: no picocli, Akka or logging set-up here (the daemon has them warm)
            java.util.OptionalInt status = DaemonClient.run(args);
            if (status.isPresent()) {
                System.exit(status.getAsInt());
            }
        }
        if ("run".equals(first) || "node".equals(first)) {
            loadConfigAhead();
        }
        // initialise logging before any other thread logs (else SLF4J reports calls it had to replay)
        org.slf4j.LoggerFactory.getILoggerFactory();
        System.exit(commandLine(first).execute(args));
    }

    /**
     * A command that starts a node ({@code run}, {@code node}) needs the default configuration (every
     * {@code reference.conf} on the class path, Akka's and Kamon's among them, parsed, merged and resolved: 0.2-0.4
     * s of CPU, the largest piece of a node's start after the actor system's own). {@code ConfigFactory.load()}
     * keeps what it made, so a thread of its own makes it now, while this one sets up logging and parses the
     * command line; the node's start then finds it made (or waits for it, not doing the work twice).
     */
    private static void loadConfigAhead() {
        Thread t = new Thread(() -> {
            try {
                com.typesafe.config.ConfigFactory.load();
            } catch (RuntimeException e) {
                // the node's own load meets the same error and reports it
            }
        }, "replay-config-load");
        t.setDaemon(true);
        t.start();
    }

    /**
     * The most evaluator threads a command takes: evaluation is CPU-bound, and each thread holds a group's state; a
     * count far past the cores (--threads 100000) ran the JVM out of native threads, with a stack trace and a hang.
     */
    static final int MAX_THREADS = 1024;

    /** Refuses a thread count past {@link #MAX_THREADS} for {@code option}, in one line. */
    /** {@code --wave-size N} of capture build, amber and disasm: 32 or 64, else a ParameterException saying so. */
    public static void checkWaveSize(CommandLine.Model.CommandSpec spec, int n) {
        if (n != 32 && n != 64) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--wave-size " + n + ": expected 32 or 64");
        }
    }

    public static void checkThreads(CommandLine.Model.CommandSpec spec, String option, int n) {
        if (n > MAX_THREADS) {
            throw new CommandLine.ParameterException(spec.commandLine(), option + " " + n + ": at most " + MAX_THREADS
                    + " (evaluation is CPU-bound; this machine has " + Runtime.getRuntime().availableProcessors()
                    + " cores)");
        }
    }

    /**
     * Refuses an output folder that is an existing file, in one line, before any work: the write at the end failed
     * with the bare path as its message ({@code replay run} after evaluating everything).
     */
    public static void checkOutDir(CommandLine.Model.CommandSpec spec, java.nio.file.Path out) {
        if (java.nio.file.Files.exists(out) && !java.nio.file.Files.isDirectory(out)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--out " + out
                    + ": exists and is not a folder");
        }
    }

    /** The configured command line: errors print one clear line and exit with status 2. */
    public static CommandLine commandLine() {
        return commandLine(null);
    }

    /**
     * As above, with only the subcommand named {@code first} when it names one (picocli builds a command's
     * model from its annotations when it is added: all eighteen cost a start of {@code replay} a fifth of a
     * second of CPU); with every one otherwise ({@code --help}, {@code help}, a misspelt name and its suggestions).
     */
    public static CommandLine commandLine(String first) {
        return commandLine(first, java.util.function.UnaryOperator.identity());
    }

    /** As above, each error message passed through {@code shown} (the run daemon: paths as its client gave them). */
    public static CommandLine commandLine(String first, java.util.function.UnaryOperator<String> shown) {
        CommandLine cli = new CommandLine(new Replay());
        Class<?> named = null;
        for (Class<?> c : SUBCOMMANDS) {
            if (c != CommandLine.HelpCommand.class && c.getAnnotation(Command.class).name().equals(first)) {
                named = c;
            }
        }
        for (Class<?> c : named != null ? java.util.List.<Class<?>>of(named) : SUBCOMMANDS) {
            cli.addSubcommand(c);
        }
        cli.setExecutionExceptionHandler((e, line, parsed) -> {
            PrintWriter err = line.getErr();
            err.println("replay: error: " + shown.apply(describe(e)));
            return EXIT_ERROR;
        });
        cli.setParameterExceptionHandler((e, args) -> {
            CommandLine line = e.getCommandLine();
            line.getErr().println("replay: " + shown.apply(e.getMessage()));
            line.getErr().println("Try '" + line.getCommandSpec().qualifiedName() + " --help'.");
            return EXIT_ERROR;
        });
        return cli;
    }

    /** One line that says what went wrong, in the user's terms. */
    public static String describe(Exception e) {
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
