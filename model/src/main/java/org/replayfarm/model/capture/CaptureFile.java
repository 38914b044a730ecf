package org.replayfarm.model.capture;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.replayfarm.proto.BlobRef;
import org.replayfarm.proto.Capture;

/**
 * An opened capture file: its metadata, parsed and validated, and its blobs memory-mapped (never copied
 * onto the heap). Every header field, length, offset and hash is checked on open; any bad one is a
 * {@link CaptureFormatException} naming the field.
 */
public final class CaptureFile implements BlobSource {
    private final Path path;
    private final Capture metadata;
    private final long blobSectionStart;
    private final long fileLength;
    private final Map<BlobRef, ByteBuffer> mapped = new HashMap<>();

    private CaptureFile(Path path, Capture metadata, long blobSectionStart, long fileLength) {
        this.path = path;
        this.metadata = metadata;
        this.blobSectionStart = blobSectionStart;
        this.fileLength = fileLength;
    }

    /** Opens, maps and fully validates a capture, checking every blob's SHA-256. */
    public static CaptureFile open(Path path) throws IOException, CaptureFormatException {
        // a folder fails to read with "Is a directory" (naming nothing), a pipe blocks the open until a writer comes
        if (java.nio.file.Files.isDirectory(path)) {
            throw new IOException(path + " is a folder, not a capture file");
        }
        if (java.nio.file.Files.exists(path) && !java.nio.file.Files.isRegularFile(path)) {
            throw new IOException(path + " is not a regular file (a pipe or a device), not a capture file");
        }
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            long fileLength = channel.size();
            ByteBuffer header = ByteBuffer.allocate(CaptureFormat.HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            readFully(channel, header, 0);
            if (header.position() < CaptureFormat.MAGIC.length) {
                throw new CaptureFormatException("header.magic",
                        "file is " + fileLength + " bytes, too short to hold the capture magic");
            }
            byte[] magic = Arrays.copyOf(header.array(), CaptureFormat.MAGIC.length);
            if (!Arrays.equals(magic, CaptureFormat.MAGIC)) {
                throw new CaptureFormatException("header.magic", "not a capture file (magic is "
                        + Sha256.hex(magic) + ", expected " + Sha256.hex(CaptureFormat.MAGIC) + ")");
            }
            if (header.position() < CaptureFormat.HEADER_BYTES) {
                throw new CaptureFormatException("header.version", "file truncated inside the header ("
                        + fileLength + " bytes)");
            }
            int version = header.getInt(8);
            if (version != CaptureFormat.VERSION) {
                throw new CaptureFormatException("header.version", "format version " + Integer.toUnsignedString(version)
                        + " is not supported (this build reads version " + CaptureFormat.VERSION + ")");
            }
            int reserved = header.getInt(12);
            if (reserved != 0) {
                throw new CaptureFormatException("header.reserved", "must be zero, is " + Integer.toUnsignedString(reserved));
            }
            int lengthBytesMax = 10;
            ByteBuffer lengthPrefix = ByteBuffer.allocate(lengthBytesMax);
            readFully(channel, lengthPrefix, CaptureFormat.HEADER_BYTES);
            if (lengthPrefix.position() == 0) {
                throw new CaptureFormatException("metadata.length", "file truncated: no metadata after the header");
            }
            CodedInputStream lengthReader = CodedInputStream.newInstance(lengthPrefix.array(), 0, lengthPrefix.position());
            long metadataLength;
            try {
                metadataLength = lengthReader.readRawVarint64();
            } catch (InvalidProtocolBufferException e) {
                throw new CaptureFormatException("metadata.length", "file truncated inside the metadata length", e);
            }
            int prefixBytes = lengthReader.getTotalBytesRead();
            if (metadataLength < 0 || metadataLength > CaptureFormat.MAX_METADATA_BYTES) {
                throw new CaptureFormatException("metadata.length", "length " + Long.toUnsignedString(metadataLength)
                        + " exceeds the limit of " + CaptureFormat.MAX_METADATA_BYTES + " bytes");
            }
            long metadataStart = CaptureFormat.HEADER_BYTES + prefixBytes;
            if (metadataStart + metadataLength > fileLength) {
                throw new CaptureFormatException("metadata.length", "file truncated: metadata of " + metadataLength
                        + " bytes at offset " + metadataStart + " runs past the end of the " + fileLength + "-byte file");
            }
            ByteBuffer metadataBytes = ByteBuffer.allocate((int) metadataLength);
            readFully(channel, metadataBytes, metadataStart);
            metadataBytes.flip();
            Capture metadata;
            try {
                metadata = Capture.parseFrom(metadataBytes);
            } catch (InvalidProtocolBufferException e) {
                throw new CaptureFormatException("metadata", "not a valid Capture message: " + e.getMessage(), e);
            }
            long blobStart = CaptureFormat.alignUp(metadataStart + metadataLength, CaptureFormat.BLOB_ALIGNMENT);
            CaptureFile file = new CaptureFile(path, metadata, blobStart, fileLength);
            file.mapBlobs(channel);
            CaptureValidator.validate(metadata, file);
            return file;
        }
    }

    private static void readFully(FileChannel channel, ByteBuffer into, long position) throws IOException {
        long at = position;
        while (into.hasRemaining()) {
            int n = channel.read(into, at);
            if (n < 0) {
                return;
            }
            at += n;
        }
    }

    /** Maps every referenced blob once, checking bounds, alignment and hash. */
    private void mapBlobs(FileChannel channel) throws IOException, CaptureFormatException {
        for (var entry : BlobRefs.all(metadata).entrySet()) {
            BlobRef ref = entry.getValue();
            if (mapped.containsKey(ref)) {
                continue;
            }
            String field = entry.getKey();
            long offset = ref.getOffset();
            long length = ref.getLength();
            if (offset < 0 || offset % CaptureFormat.BLOB_ALIGNMENT != 0) {
                throw new CaptureFormatException(field + ".offset", "offset " + Long.toUnsignedString(offset)
                        + " is not a multiple of " + CaptureFormat.BLOB_ALIGNMENT);
            }
            if (length < 0 || length > Integer.MAX_VALUE) {
                throw new CaptureFormatException(field + ".length", "length " + Long.toUnsignedString(length)
                        + " exceeds the largest blob one mapping can hold (" + Integer.MAX_VALUE + " bytes)");
            }
            long available = fileLength - blobSectionStart;
            if (offset > available || length > available - offset) {
                throw new CaptureFormatException(field, "blob of " + length + " bytes at blob offset " + offset
                        + " runs past the end of the file (blob section holds " + Math.max(0, available) + " bytes)");
            }
            if (ref.getSha256().size() != 32) {
                throw new CaptureFormatException(field + ".sha256", "must be 32 bytes, is " + ref.getSha256().size());
            }
            MappedByteBuffer map = channel.map(FileChannel.MapMode.READ_ONLY, blobSectionStart + offset, length);
            byte[] actual = Sha256.of(map);
            if (!MessageDigest.isEqual(actual, ref.getSha256().toByteArray())) {
                throw new CaptureFormatException(field + ".sha256", "hash mismatch: content hashes to "
                        + Sha256.hex(actual) + ", metadata says " + Sha256.hex(ref.getSha256().toByteArray()));
            }
            mapped.put(ref, map.asReadOnlyBuffer());
        }
    }

    @Override
    public ByteBuffer blob(BlobRef ref, String field) throws CaptureFormatException {
        ByteBuffer buffer = mapped.get(ref);
        if (buffer == null) {
            throw new CaptureFormatException(field, "blob reference not present in " + path);
        }
        return buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The blob's bytes; the reference must come from this capture's metadata. */
    public ByteBuffer blob(BlobRef ref) {
        ByteBuffer buffer = mapped.get(ref);
        if (buffer == null) {
            throw new IllegalArgumentException("blob reference does not belong to " + path);
        }
        return buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }

    public Capture metadata() {
        return metadata;
    }

    public Path path() {
        return path;
    }

    public long fileLength() {
        return fileLength;
    }

    /** The file's SHA-256 (hex): a capture's identity. Reads the whole file. */
    public String identity() throws IOException {
        MessageDigest digest = Sha256.newDigest();
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            ByteBuffer chunk = ByteBuffer.allocate(1 << 20);
            while (channel.read(chunk) > 0) {
                chunk.flip();
                digest.update(chunk);
                chunk.clear();
            }
        }
        return Sha256.hex(digest.digest());
    }
}
