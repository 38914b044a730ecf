package org.replayfarm.cli.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The digest a history gives a finished job's outputs: SHA-256 over the host side's files ({@code host/...}: the
 * merged guest memory and images, where a missing or doubled group shows), each as its path and its bytes, in
 * path order. The same digest of {@code replay eval --out DIR}'s folder is what the checker wants.
 */
public final class Outputs {
    private Outputs() {
    }

    /** The digest of {@code files} (relative path with '/' to bytes); only paths under {@code host/} count. */
    public static String digest(Map<String, byte[]> files) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        int counted = 0;
        for (Map.Entry<String, byte[]> f : new TreeMap<>(files).entrySet()) {
            if (!f.getKey().startsWith("host/")) {
                continue;
            }
            byte[] name = f.getKey().getBytes(StandardCharsets.UTF_8);
            sha.update(name);
            sha.update((byte) 0);
            sha.update(Long.toString(f.getValue().length).getBytes(StandardCharsets.UTF_8));
            sha.update((byte) 0);
            sha.update(f.getValue());
            counted++;
        }
        if (counted == 0) {
            throw new IllegalArgumentException("no host/ outputs among " + files.keySet());
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    /** The digest of the folder {@code dir} (e.g. replay eval's {@code --out}). */
    public static String digest(Path dir) throws IOException {
        Map<String, byte[]> files = new TreeMap<>();
        List<Path> all;
        try (Stream<Path> w = Files.walk(dir)) {
            all = w.filter(Files::isRegularFile).toList();
        }
        for (Path f : all) {
            files.put(dir.relativize(f).toString().replace('\\', '/'), Files.readAllBytes(f));
        }
        return digest(files);
    }
}
