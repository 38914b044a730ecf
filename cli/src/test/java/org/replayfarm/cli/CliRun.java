package org.replayfarm.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Runs the replay command in-process and keeps what it printed. */
public record CliRun(int exitCode, String out, String err) {
    public static CliRun of(String... args) {
        StringWriter err = new StringWriter();
        return execute(err, err.getBuffer(), args);
    }

    /** Runs the command with its stderr going to {@code errSink}, which keeps what was printed in {@code err}. */
    private static CliRun execute(Writer errSink, CharSequence err, String... args) {
        StringWriter out = new StringWriter();
        var cli = Replay.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(errSink, true));
        int code = cli.execute(args);
        return new CliRun(code, out.toString(), err.toString());
    }

    /**
     * As {@link #of}; the first time what the command printed on stderr holds a match of {@code line}, {@code atLine}
     * runs with that match, on the command's own thread while it prints: what the command holds open at that line
     * (an embedded run's node, say) is still open.
     */
    static CliRun ofAtErrLine(Pattern line, Consumer<Matcher> atLine, String... args) {
        StringBuilder err = new StringBuilder();
        Writer watching = new Writer() {
            private boolean seen;

            @Override
            public void write(char[] b, int off, int len) {
                err.append(b, off, len);
                if (!seen) {
                    Matcher m = line.matcher(err);
                    if (m.find()) {
                        seen = true;
                        atLine.accept(m);
                    }
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        return execute(watching, err, args);
    }
}
