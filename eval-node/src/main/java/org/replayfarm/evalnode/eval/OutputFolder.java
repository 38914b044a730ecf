package org.replayfarm.evalnode.eval;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * How a run's output folder is written so that it either holds a finished run or says it is incomplete:
 * {@link #begin} removes an earlier {@code report.json} and leaves an {@code INCOMPLETE} note; every file
 * is written under a temporary name in its own folder and renamed over its final name ({@link #write}), so
 * no file is ever seen half written under its final name; {@code report.json} is renamed into place last
 * and only then is the note removed ({@link #finish}). A reader takes a folder as a finished run only when
 * it holds {@code report.json} and no {@code INCOMPLETE} ({@link #complete}).
 */
public final class OutputFolder {
    /** The note a folder holds while it is written (and keeps if the writer stopped before the end). */
    public static final String INCOMPLETE = "INCOMPLETE";
    public static final String REPORT = "report.json";

    private OutputFolder() {
    }

    /** Starts writing {@code dir}: no earlier report stays beside the new outputs, and the note says so. */
    public static void begin(Path dir) throws IOException {
        Files.createDirectories(dir);
        write(dir.resolve(INCOMPLETE), ("this folder is being written by replay (pid " + ProcessHandle.current().pid()
                + "); while this file is here it holds no finished run: the outputs beside it may be a mix of an "
                + "earlier run and an unfinished one, and report.json is written last\n").getBytes(StandardCharsets.UTF_8));
        Files.deleteIfExists(dir.resolve(REPORT));
    }

    /** Writes {@code bytes} to a temporary name beside {@code file}, then renames it over {@code file}. */
    public static void write(Path file, byte[] bytes) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path tmp = Files.createTempFile(parent, "." + file.getFileName() + ".", ".tmp");
        try {
            Files.write(tmp, bytes);
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Every output is in place: {@code report} goes in last, then the note is removed. */
    public static void finish(Path dir, byte[] report) throws IOException {
        write(dir.resolve(REPORT), report);
        Files.deleteIfExists(dir.resolve(INCOMPLETE));
    }

    /** Whether {@code dir} holds a finished run (its report, and no note saying it is being written). */
    public static boolean complete(Path dir) {
        return Files.isRegularFile(dir.resolve(REPORT)) && !Files.exists(dir.resolve(INCOMPLETE));
    }
}
