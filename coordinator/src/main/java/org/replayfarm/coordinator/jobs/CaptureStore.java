package org.replayfarm.coordinator.jobs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.regex.Pattern;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.capture.CaptureFormatException;

/** Captures on disk, each validated once and kept as {@code <sha256>.capture}: a capture's hash is its name. */
public final class CaptureStore {
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
    private final Path dir;

    public CaptureStore(Path dir) throws IOException {
        this.dir = Files.createDirectories(dir);
    }

    /** Validates {@code file} (every field and hash) and stores it; returns its SHA-256. */
    public String store(Path file) throws IOException, CaptureFormatException {
        String sha = CaptureFile.open(file).identity();
        Path target = path(sha);
        if (!Files.exists(target)) {
            Path tmp = Files.createTempFile(dir, "upload", ".tmp");
            Files.copy(file, tmp, StandardCopyOption.REPLACE_EXISTING);
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } else {
            touch(sha);
        }
        return sha;
    }

    /**
     * Marks a stored capture as just used (its modification time now): the coordinator's retention sweep keeps a
     * capture uploaded, stored again or asked about lately, which a job is about to name, even while no job uses it.
     */
    public void touch(String sha256) {
        try {
            if (has(sha256)) {
                Files.setLastModifiedTime(path(sha256), java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis()));
            }
        } catch (IOException e) {
            // a capture we cannot touch is only swept earlier than it might be; its use is unaffected
        }
    }

    public boolean has(String sha256) {
        return SHA256.matcher(sha256).matches() && Files.exists(path(sha256));
    }

    /** The stored file of a capture (which must be stored). */
    public Path path(String sha256) {
        if (!SHA256.matcher(sha256).matches()) {
            throw new IllegalArgumentException("'" + sha256 + "' is not a SHA-256 in hex");
        }
        return dir.resolve(sha256 + ".capture");
    }

    public Path dir() {
        return dir;
    }
}
