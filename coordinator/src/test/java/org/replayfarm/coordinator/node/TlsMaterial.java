package org.replayfarm.coordinator.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A cluster's TLS material made with the JDK's keytool, the way docs/operations.md tells an operator to: the cluster's
 * key (a CA) in {@code ca.p12}, its certificate in the trust store {@code trust.p12}, and per node a key and a
 * certificate the CA signed, alone in {@code NAME.p12}. One password for every store, in {@code password}.
 */
final class TlsMaterial {
    final Path dir;
    final Path trustStore;
    final Path passwordFile;
    private final String password = "farm-test-" + Long.toHexString(System.nanoTime());

    TlsMaterial(Path dir) throws Exception {
        this.dir = Files.createDirectories(dir);
        this.passwordFile = Files.writeString(dir.resolve("password"), password + "\n");
        this.trustStore = dir.resolve("trust.p12");
        keytool("-genkeypair", "-keystore", "ca.p12", "-storepass", password, "-alias", "ca", "-dname",
                "CN=replay-farm-ca", "-keyalg", "RSA", "-keysize", "2048", "-ext", "bc:c", "-validity", "3650");
        keytool("-exportcert", "-keystore", "ca.p12", "-storepass", password, "-alias", "ca", "-rfc", "-file", "ca.pem");
        keytool("-importcert", "-keystore", "trust.p12", "-storepass", password, "-alias", "ca", "-file", "ca.pem",
                "-noprompt");
    }

    /** A key and a certificate signed by the cluster's key, in {@code NAME.p12}. */
    Path node(String name) throws Exception {
        keytool("-genkeypair", "-keystore", "ca.p12", "-storepass", password, "-alias", name, "-dname", "CN=" + name,
                "-keyalg", "RSA", "-keysize", "2048", "-signer", "ca", "-validity", "825");
        keytool("-importkeystore", "-srckeystore", "ca.p12", "-srcstorepass", password, "-srcalias", name,
                "-destkeystore", name + ".p12", "-deststorepass", password);
        return dir.resolve(name + ".p12");
    }

    /** A key and a self-signed certificate, no CA's: what a node that was never given the material could make. */
    Path stranger(String name) throws Exception {
        keytool("-genkeypair", "-keystore", name + ".p12", "-storepass", password, "-alias", name, "-dname",
                "CN=" + name, "-keyalg", "RSA", "-keysize", "2048", "-validity", "825");
        return dir.resolve(name + ".p12");
    }

    /** A node's replay.cluster.tls with {@code keyStore}, the cluster's trust store and the password file. */
    Config settings(Path keyStore) {
        return ConfigFactory.parseMap(java.util.Map.of(
                "replay.cluster.tls.key-store", keyStore.toString(),
                "replay.cluster.tls.trust-store", trustStore.toString(),
                "replay.cluster.tls.password-file", passwordFile.toString()));
    }

    private void keytool(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
        assertEquals(0, p.exitValue(), "keytool " + String.join(" ", args) + ": " + out);
    }
}
