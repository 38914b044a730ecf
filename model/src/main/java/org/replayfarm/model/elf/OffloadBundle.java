package org.replayfarm.model.elf;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Clang offload bundles and HIP fat binaries, as clang-19 writes them for HIP ({@code -x hip
 * --offload-arch=gfx1030 [--cuda-device-only] -c}): the code object for gfx1030 is taken out of them.
 *
 * <ul>
 *   <li>A bundle: {@code __CLANG_OFFLOAD_BUNDLE__}, a u64 entry count, then per entry a u64 offset, a u64 size,
 *       a u64 length and the entry's id ({@code hipv4-amdgcn-amd-amdhsa--gfx1030}, {@code host-x86_64-...}), all
 *       little-endian; each entry's bytes at its offset from the start of the bundle.</li>
 *   <li>A HIP fat binary: a host object (an ELF for another machine) whose {@code .hip_fatbin} section holds a
 *       bundle.</li>
 *   <li>A compressed bundle ({@code CCOB}, clang's {@code --offload-compress}): {@code CCOB}, a u16 version, a u16
 *       method (0 zlib, 1 zstd), then the compressed file's size (version 2: u32, version 3: u64; version 1 has
 *       none), the uncompressed size (u32, version 3: u64), the first 8 bytes of the MD5 of the uncompressed
 *       bundle, and the compressed bundle. It is inflated (zstd by aircompressor, zlib by the JDK), its size and
 *       hash checked, and read as a bundle.</li>
 * </ul>
 */
public final class OffloadBundle {
    static final byte[] MAGIC = "__CLANG_OFFLOAD_BUNDLE__".getBytes(StandardCharsets.US_ASCII);
    static final byte[] COMPRESSED_MAGIC = "CCOB".getBytes(StandardCharsets.US_ASCII);
    /** The processor the replay runs. */
    public static final String PROCESSOR = "gfx1030";

    private OffloadBundle() {
    }

    /** One entry: its id (offload kind, triple and target id) and bytes. */
    public record Entry(String id, byte[] bytes) {
        /** The processor of an amdgcn entry ({@code gfx1030} of {@code hipv4-amdgcn-amd-amdhsa--gfx1030:xnack-}), else "". */
        public String processor() {
            int dashes = id.indexOf("--");
            if (!id.contains("amdgcn") || dashes < 0) {
                return "";
            }
            String target = id.substring(dashes + 2);
            int colon = target.indexOf(':');
            return colon < 0 ? target : target.substring(0, colon);
        }
    }

    /** What was taken: the gfx1030 code object, its entry id, and how the input held it. */
    public record Picked(byte[] codeObject, String entry, String container, List<String> entries) {
        public String describe() {
            return "took the " + PROCESSOR + " code object '" + entry + "' of the " + container + " (entries: "
                    + String.join(", ", entries) + ")";
        }
    }

    /**
     * The gfx1030 code object inside {@code bytes} when it is a bundle or a HIP fat binary; empty when it is
     * neither (an AMDGPU ELF as it is, or something else for {@link ElfFile#parse} to refuse).
     */
    public static Optional<Picked> unpack(byte[] bytes) throws CodeObjectException {
        if (startsWith(bytes, 0, COMPRESSED_MAGIC)) {
            byte[] inflated = decompress(bytes);
            if (!startsWith(inflated, 0, MAGIC)) {
                throw new CodeObjectException("compressed offload bundle: what it holds is not a clang offload bundle");
            }
            Picked p = pick(read(inflated, 0, inflated.length, "compressed offload bundle"), "compressed clang offload bundle");
            return Optional.of(p);
        }
        if (startsWith(bytes, 0, MAGIC)) {
            return Optional.of(pick(read(bytes, 0, bytes.length, "offload bundle"), "clang offload bundle"));
        }
        Optional<byte[]> fatbin = hipFatbinSection(bytes);
        if (fatbin.isPresent()) {
            byte[] section = fatbin.get();
            if (startsWith(section, 0, COMPRESSED_MAGIC)) {
                return unpack(section);
            }
            if (!startsWith(section, 0, MAGIC)) {
                throw new CodeObjectException("host object: its .hip_fatbin section holds no clang offload bundle");
            }
            return Optional.of(pick(read(section, 0, section.length, ".hip_fatbin bundle"),
                    "HIP fat binary (.hip_fatbin section of a host object)"));
        }
        return Optional.empty();
    }

    /** Upper bound on an inflated bundle (code objects are megabytes at most; a corrupt size is not an allocation). */
    static final long MAX_INFLATED = 1L << 30;

    /**
     * The bundle a {@code CCOB} compressed bundle holds: its header read and checked (version, method, sizes),
     * the payload inflated, its size and MD5 prefix compared with the header's.
     */
    static byte[] decompress(byte[] bytes) throws CodeObjectException {
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        try {
            b.position(COMPRESSED_MAGIC.length);
            int version = Short.toUnsignedInt(b.getShort());
            int method = Short.toUnsignedInt(b.getShort());
            long total = switch (version) {
                case 1 -> bytes.length;
                case 2 -> Integer.toUnsignedLong(b.getInt());
                case 3 -> b.getLong();
                default -> throw new CodeObjectException("compressed offload bundle: version " + version
                        + " (versions 1, 2 and 3 are known)");
            };
            long size = version == 3 ? b.getLong() : Integer.toUnsignedLong(b.getInt());
            byte[] hash = new byte[8];
            b.get(hash);
            if (total != bytes.length) {
                throw new CodeObjectException("compressed offload bundle: its header says " + total
                        + " bytes, the file has " + bytes.length);
            }
            if (size < 0 || size > MAX_INFLATED) {
                throw new CodeObjectException("compressed offload bundle: an uncompressed size of " + size + " bytes");
            }
            int at = b.position();
            byte[] out = new byte[(int) size];
            int got = switch (method) {
                case 0 -> inflateZlib(bytes, at, out);
                case 1 -> inflateZstd(bytes, at, out);
                default -> throw new CodeObjectException("compressed offload bundle: compression method " + method
                        + " (0 zlib and 1 zstd are known)");
            };
            if (got != size) {
                throw new CodeObjectException("compressed offload bundle: inflated to " + got + " bytes, its header says "
                        + size);
            }
            byte[] md5 = java.security.MessageDigest.getInstance("MD5").digest(out);
            if (!java.util.Arrays.equals(hash, java.util.Arrays.copyOf(md5, 8))) {
                throw new CodeObjectException("compressed offload bundle: the MD5 of what it holds does not match its header "
                        + "(a damaged file)");
            }
            return out;
        } catch (java.nio.BufferUnderflowException e) {
            throw new CodeObjectException("compressed offload bundle: truncated header (" + bytes.length + " bytes)");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no MD5", e);
        }
    }

    private static int inflateZstd(byte[] in, int at, byte[] out) throws CodeObjectException {
        try {
            return new io.airlift.compress.zstd.ZstdDecompressor().decompress(in, at, in.length - at, out, 0, out.length);
        } catch (RuntimeException e) {
            // aircompressor reports malformed or oversized input as MalformedInputException / IllegalArgumentException
            throw new CodeObjectException("compressed offload bundle: its zstd data is damaged (" + e.getMessage() + ")");
        }
    }

    private static int inflateZlib(byte[] in, int at, byte[] out) throws CodeObjectException {
        java.util.zip.Inflater inflater = new java.util.zip.Inflater();
        try {
            inflater.setInput(in, at, in.length - at);
            int n = 0;
            while (n < out.length && !inflater.finished()) {
                int k = inflater.inflate(out, n, out.length - n);
                if (k == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
                    break;
                }
                n += k;
            }
            if (!inflater.finished()) {
                throw new CodeObjectException("compressed offload bundle: its zlib data is truncated or larger than its "
                        + "header says");
            }
            return n;
        } catch (java.util.zip.DataFormatException e) {
            throw new CodeObjectException("compressed offload bundle: its zlib data is damaged (" + e.getMessage() + ")");
        } finally {
            inflater.end();
        }
    }

    /** The entries of the bundle at {@code start} of {@code bytes}, each checked against the bundle's bounds. */
    static List<Entry> read(byte[] bytes, int start, int length, String what) throws CodeObjectException {
        ByteBuffer b = ByteBuffer.wrap(bytes, start, length).slice().order(ByteOrder.LITTLE_ENDIAN);
        try {
            b.position(MAGIC.length);
            long count = b.getLong();
            if (count < 1 || count > 4096) {
                throw new CodeObjectException(what + ": " + count + " entries");
            }
            List<Entry> entries = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                long offset = b.getLong();
                long size = b.getLong();
                long idLength = b.getLong();
                if (idLength < 0 || idLength > 1024) {
                    throw new CodeObjectException(what + ": entry " + i + " has an id of " + idLength + " bytes");
                }
                byte[] id = new byte[(int) idLength];
                b.get(id);
                if (offset < 0 || size < 0 || size > length || offset > length - size) {
                    throw new CodeObjectException(what + ": entry " + i + " (" + new String(id, StandardCharsets.US_ASCII)
                            + ") at " + offset + " of " + size + " bytes runs past the bundle's " + length + " bytes");
                }
                byte[] content = new byte[(int) size];
                System.arraycopy(bytes, start + (int) offset, content, 0, (int) size);
                entries.add(new Entry(new String(id, StandardCharsets.US_ASCII), content));
            }
            return entries;
        } catch (java.nio.BufferUnderflowException e) {
            throw new CodeObjectException(what + ": truncated entry table");
        }
    }

    private static Picked pick(List<Entry> entries, String container) throws CodeObjectException {
        List<String> ids = entries.stream().map(Entry::id).toList();
        List<Entry> ours = entries.stream().filter(e -> e.processor().equals(PROCESSOR) && e.bytes().length > 0).toList();
        if (ours.isEmpty()) {
            throw new CodeObjectException("the " + container + " holds no " + PROCESSOR + " code object (entries: "
                    + String.join(", ", ids) + "); build with --offload-arch=" + PROCESSOR);
        }
        if (ours.size() > 1) {
            throw new CodeObjectException("the " + container + " holds several " + PROCESSOR + " code objects ("
                    + String.join(", ", ours.stream().map(Entry::id).toList()) + "); build with one --offload-arch=" + PROCESSOR);
        }
        return new Picked(ours.get(0).bytes(), ours.get(0).id(), container, ids);
    }

    /** The {@code .hip_fatbin} section of a 64-bit little-endian ELF of any machine, if it has one. */
    static Optional<byte[]> hipFatbinSection(byte[] bytes) throws CodeObjectException {
        if (bytes.length < 64 || bytes[0] != 0x7f || bytes[1] != 'E' || bytes[2] != 'L' || bytes[3] != 'F'
                || bytes[4] != 2 || bytes[5] != 1) {
            return Optional.empty();
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        long shoff = b.getLong(0x28);
        int shentsize = Short.toUnsignedInt(b.getShort(0x3a));
        int shnum = Short.toUnsignedInt(b.getShort(0x3c));
        int shstrndx = Short.toUnsignedInt(b.getShort(0x3e));
        if (shoff <= 0 || shentsize < 64 || shstrndx >= shnum || shoff + (long) shnum * shentsize > bytes.length) {
            return Optional.empty();
        }
        long strOffset = b.getLong((int) (shoff + (long) shstrndx * shentsize + 0x18));
        for (int i = 0; i < shnum; i++) {
            int h = (int) (shoff + (long) i * shentsize);
            long nameAt = strOffset + Integer.toUnsignedLong(b.getInt(h));
            int type = b.getInt(h + 4);
            long offset = b.getLong(h + 0x18);
            long size = b.getLong(h + 0x20);
            if (nameAt >= 0 && nameAt < bytes.length && name(bytes, (int) nameAt).equals(".hip_fatbin")) {
                if (type == 8 /* SHT_NOBITS */ || offset < 0 || size < 0 || size > bytes.length || offset > bytes.length - size) {
                    throw new CodeObjectException("host object: .hip_fatbin at " + offset + " of " + size
                            + " bytes runs past the file's " + bytes.length + " bytes");
                }
                byte[] out = new byte[(int) size];
                System.arraycopy(bytes, (int) offset, out, 0, (int) size);
                return Optional.of(out);
            }
        }
        return Optional.empty();
    }

    private static String name(byte[] bytes, int at) {
        int end = at;
        while (end < bytes.length && bytes[end] != 0) {
            end++;
        }
        return new String(bytes, at, end - at, StandardCharsets.US_ASCII);
    }

    private static boolean startsWith(byte[] bytes, int at, byte[] prefix) {
        if (bytes.length - at < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (bytes[at + i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }
}
