package org.replayfarm.model.amber;

/**
 * A command of the script in execution order (REPEAT blocks unrolled): a compute {@link Run}, a graphics run
 * ({@link GraphicsRun}, DRAW_RECT, DRAW_GRID or DRAW_ARRAY, kept as text), a {@link Copy}, a graphics
 * {@link Clear} (CLEAR, CLEAR_COLOR, CLEAR_DEPTH, CLEAR_STENCIL, kept as text) or an {@link Expect}. Each has
 * its 1-based line.
 */
public sealed interface Command permits Command.Run, Command.GraphicsRun, Command.Copy, Command.Clear, Expect {
    /** The 1-based line of the command. */
    int line();

    /** {@code RUN pipeline x y z}: a compute dispatch of x * y * z workgroups. */
    record Run(String pipeline, int x, int y, int z, int line) implements Command {
    }

    /** {@code RUN pipeline DRAW_...}: a graphics run, its command text as written. */
    record GraphicsRun(String pipeline, int line, String text) implements Command {
    }

    /** {@code COPY from TO to}: all of {@code from}'s bytes into {@code to} (which takes its size). */
    record Copy(String from, String to, int line) implements Command {
    }

    /** A graphics CLEAR/CLEAR_COLOR/CLEAR_DEPTH/CLEAR_STENCIL of {@code pipeline}, its text as written. */
    record Clear(String pipeline, int line, String text) implements Command {
    }
}
