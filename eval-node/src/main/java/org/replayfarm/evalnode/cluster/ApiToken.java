package org.replayfarm.evalnode.cluster;

import com.typesafe.config.Config;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * The coordinator's API token: every HTTP route (the job API and capture downloads) wants
 * {@code Authorization: Bearer TOKEN} when one is set, and evaluators and the CLI clients send it. It comes
 * from {@code replay.api.token-file} (a file holding it; {@code --api-token-file}, {@code REPLAY_API_TOKEN_FILE})
 * or {@code replay.api.token} ({@code REPLAY_API_TOKEN}).
 */
public final class ApiToken {
    private ApiToken() {
    }

    /** The token the configuration gives, if any. */
    public static Optional<String> from(Config c) throws IOException {
        String file = c.hasPath("replay.api.token-file") ? c.getString("replay.api.token-file") : "";
        String token;
        if (!file.isEmpty()) {
            Path p = Path.of(file);
            if (!Files.isRegularFile(p)) {
                throw new java.nio.file.NoSuchFileException(file, null, "the API token file (--api-token-file)");
            }
            token = Files.readString(p, StandardCharsets.UTF_8).strip();
            if (token.isEmpty()) {
                throw new IllegalArgumentException("the API token file " + file + " is empty");
            }
        } else {
            token = c.hasPath("replay.api.token") ? c.getString("replay.api.token").strip() : "";
        }
        if (token.chars().anyMatch(ch -> ch <= ' ' || ch >= 127)) {
            throw new IllegalArgumentException("the API token must be printable ASCII without spaces");
        }
        return token.isEmpty() ? Optional.empty() : Optional.of(token);
    }

    /** The token as the CLI clients read it: {@code REPLAY_API_TOKEN}, else the file {@code REPLAY_API_TOKEN_FILE} names. */
    public static Optional<String> fromEnvironment() throws IOException {
        String token = System.getenv().getOrDefault("REPLAY_API_TOKEN", "").strip();
        String file = System.getenv().getOrDefault("REPLAY_API_TOKEN_FILE", "");
        if (token.isEmpty() && !file.isEmpty()) {
            token = Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
        }
        return token.isEmpty() ? Optional.empty() : Optional.of(token);
    }

    /** The value of the Authorization header that carries {@code token}. */
    public static String header(String token) {
        return "Bearer " + token;
    }

    /** Whether an Authorization header value carries {@code token} (compared in constant time). */
    public static boolean matches(String token, String authorization) {
        if (authorization == null || !authorization.startsWith("Bearer ")) {
            return false;
        }
        byte[] given = authorization.substring(7).strip().getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(given, token.getBytes(StandardCharsets.UTF_8));
    }
}
