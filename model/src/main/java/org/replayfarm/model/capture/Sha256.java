package org.replayfarm.model.capture;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 of byte buffers, without disturbing their position. */
public final class Sha256 {
    private Sha256() {
    }

    public static byte[] of(ByteBuffer data) {
        MessageDigest digest = newDigest();
        digest.update(data.duplicate());
        return digest.digest();
    }

    public static byte[] of(byte[] data) {
        return newDigest().digest(data);
    }

    public static String hex(byte[] digest) {
        return HexFormat.of().formatHex(digest);
    }

    static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform provides SHA-256", e);
        }
    }
}
