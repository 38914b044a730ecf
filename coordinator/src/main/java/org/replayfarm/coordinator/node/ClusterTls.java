package org.replayfarm.coordinator.node;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Artery over TLS with mutual authentication, from {@code replay.cluster.tls} (see reference.conf): a key
 * store holding this node's key and certificate (signed by the cluster's key, a CA of its own), a trust
 * store holding the cluster's certificate, and the stores' password. Every connection between two nodes
 * is then TLS 1.2, and each side must present a certificate the other trusts: a node without one signed by
 * the cluster's key never completes a handshake, so it never joins. Akka's {@code ConfigSSLEngineProvider}
 * reads the stores; this class only checks them and writes the {@code akka.remote.artery} settings.
 */
public final class ClusterTls {
    /** The cipher suites: forward-secret, AEAD, for RSA and EC keys alike. */
    static final List<String> CIPHERS = List.of("TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256");
    private static final String ENGINE = "akka.remote.artery.ssl.config-ssl-engine.";

    private ClusterTls() {
    }

    /** Whether {@code config} (resolved) asks for TLS: a key store is named. */
    public static boolean enabled(Config config) {
        return !config.getString("replay.cluster.tls.key-store").isEmpty();
    }

    /**
     * The akka.* settings {@code replay.cluster.tls} stands for (empty when it names no key store); a store
     * or password file that cannot be read, or a key store without a trust store or password, is an
     * IllegalArgumentException naming it.
     */
    public static Config akkaSettings(Config config) {
        Config t = config.getConfig("replay.cluster.tls");
        String keyStore = t.getString("key-store");
        if (keyStore.isEmpty()) {
            if (!t.getString("trust-store").isEmpty()) {
                throw new IllegalArgumentException("replay.cluster.tls.trust-store is set but key-store is not "
                        + "(--tls-key-store): TLS needs this node's own key and certificate too");
            }
            return ConfigFactory.empty();
        }
        String trustStore = t.getString("trust-store");
        if (trustStore.isEmpty()) {
            throw new IllegalArgumentException("replay.cluster.tls.key-store is set but trust-store is not "
                    + "(--tls-trust-store): the cluster's certificate, which every peer's must be signed by");
        }
        Path key = readable("replay.cluster.tls.key-store (--tls-key-store)", keyStore);
        Path trust = readable("replay.cluster.tls.trust-store (--tls-trust-store)", trustStore);
        String password = t.getString("password");
        String passwordFile = t.getString("password-file");
        if (!passwordFile.isEmpty()) {
            Path file = readable("replay.cluster.tls.password-file (--tls-password-file)", passwordFile);
            try {
                password = Files.readString(file, StandardCharsets.UTF_8).strip();
            } catch (IOException e) {
                throw new IllegalArgumentException("replay.cluster.tls.password-file '" + file + "' cannot be read: "
                        + e.getMessage(), e);
            }
        }
        if (password.isEmpty()) {
            throw new IllegalArgumentException("replay.cluster.tls needs the stores' password: password-file "
                    + "(--tls-password-file, REPLAY_TLS_PASSWORD_FILE) or password (REPLAY_TLS_PASSWORD)");
        }
        return ConfigFactory.empty()
                .withValue("akka.remote.artery.transport", ConfigValueFactory.fromAnyRef("tls-tcp"))
                .withValue("akka.remote.artery.ssl.ssl-engine-provider",
                        ConfigValueFactory.fromAnyRef("akka.remote.artery.tcp.ConfigSSLEngineProvider"))
                .withValue(ENGINE + "key-store", ConfigValueFactory.fromAnyRef(key.toString()))
                .withValue(ENGINE + "trust-store", ConfigValueFactory.fromAnyRef(trust.toString()))
                .withValue(ENGINE + "key-store-password", ConfigValueFactory.fromAnyRef(password))
                .withValue(ENGINE + "key-password", ConfigValueFactory.fromAnyRef(password))
                .withValue(ENGINE + "trust-store-password", ConfigValueFactory.fromAnyRef(password))
                .withValue(ENGINE + "protocol", ConfigValueFactory.fromAnyRef("TLSv1.2"))
                .withValue(ENGINE + "enabled-algorithms", ConfigValueFactory.fromIterable(CIPHERS))
                .withValue(ENGINE + "require-mutual-authentication", ConfigValueFactory.fromAnyRef("on"))
                // nodes are named by the cluster's certificate, not by host names (pods come and go)
                .withValue(ENGINE + "hostname-verification", ConfigValueFactory.fromAnyRef("off"));
    }

    private static Path readable(String what, String file) {
        Path p = Path.of(file).toAbsolutePath();
        if (!Files.isRegularFile(p) || !Files.isReadable(p)) {
            throw new IllegalArgumentException(what + ": no readable file '" + p + "'");
        }
        return p;
    }
}
