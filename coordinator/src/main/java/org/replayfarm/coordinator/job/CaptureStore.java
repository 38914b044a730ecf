package org.replayfarm.coordinator.job;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.regex.Pattern;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.capture.CaptureFormatException;
import org.replayfarm.model.capture.Sha256;

/** Captures on disk, each validated once and kept as {@code <sha256>.capture}: a capture's hash is its name. */
public final class CaptureStore {
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
    private final Path dir;

    public CaptureStore(Path dir) throws IOException {
        this.dir = Files.createDirectories(dir);
    }

    /** Validates {@code file} (every field and hash) and stores it; returns its SHA-256. */
    public String store(Path file) throws IOException, CaptureFormatException {
        return store(CaptureFile.open(file));
    }

    /**
     * Stores a capture this process has opened (so validated: {@link CaptureFile#open} checks every field and
     * hash); returns its SHA-256. The file is read once: copied aside while it is hashed, then kept under that
     * hash (the stored file's name is always the hash of its bytes). A file that changed size since it was
     * opened is refused.
     */
    public String store(CaptureFile validated) throws IOException, CaptureFormatException {
        Path tmp = Files.createTempFile(dir, "upload", ".tmp");
        try {
            MessageDigest digest;
            try {
                digest = MessageDigest.getInstance("SHA-256");
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
            try (InputStream in = new DigestInputStream(Files.newInputStream(validated.path()), digest)) {
                Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            }
            long copied = Files.size(tmp);
            if (copied != validated.fileLength()) {
                throw new IOException(validated.path() + " changed while it was stored (" + validated.fileLength()
                        + " bytes when opened, " + copied + " now)");
            }
            String sha = Sha256.hex(digest.digest());
            Path target = path(sha);
            if (!Files.exists(target)) {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } else {
                touch(sha);
            }
            return sha;
        } finally {
            Files.deleteIfExists(tmp);
        }
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
