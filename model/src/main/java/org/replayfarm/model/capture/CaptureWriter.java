package org.replayfarm.model.capture;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.replayfarm.proto.BlobRef;
import org.replayfarm.proto.Capture;

/**
 * Writes a capture file. Blobs are added first (each returns the reference to put in the metadata);
 * identical blobs are stored once. The bytes written depend only on the metadata and the blobs, in the
 * order they were added: no timestamps, no map order, so a capture's SHA-256 is its identity.
 */
public final class CaptureWriter implements BlobSource {
    private final List<ByteBuffer> blobs = new ArrayList<>();
    private final Map<ByteString, Integer> indexByHash = new HashMap<>();
    private final List<BlobRef> refs = new ArrayList<>();
    private long nextOffset;

    /** Adds a blob (the buffer's remaining bytes) and returns its reference. */
    public BlobRef add(ByteBuffer data) {
        ByteBuffer copy = ByteBuffer.allocate(data.remaining());
        copy.put(data.duplicate()).flip();
        ByteString hash = ByteString.copyFrom(Sha256.of(copy));
        Integer existing = indexByHash.get(hash);
        if (existing != null) {
            return refs.get(existing);
        }
        BlobRef ref = BlobRef.newBuilder().setOffset(nextOffset).setLength(copy.remaining()).setSha256(hash).build();
        indexByHash.put(hash, blobs.size());
        blobs.add(copy.asReadOnlyBuffer());
        refs.add(ref);
        nextOffset = CaptureFormat.alignUp(nextOffset + copy.remaining(), CaptureFormat.BLOB_ALIGNMENT);
        return ref;
    }

    public BlobRef add(byte[] data) {
        return add(ByteBuffer.wrap(data));
    }

    @Override
    public ByteBuffer blob(BlobRef ref, String field) throws CaptureFormatException {
        Integer index = indexByHash.get(ref.getSha256());
        if (index == null || !refs.get(index).equals(ref)) {
            throw new CaptureFormatException(field, "refers to a blob that was never added to this writer");
        }
        return blobs.get(index).duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Validates the metadata against the added blobs, then writes the file atomically. */
    public void write(Capture metadata, Path out) throws IOException, CaptureFormatException {
        CaptureValidator.validate(metadata, this);
        Path tmp = out.resolveSibling(out.getFileName() + ".tmp");
        try (OutputStream os = Files.newOutputStream(tmp)) {
            writeTo(metadata, os);
        }
        Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Validates the metadata and returns the whole file as bytes (for small captures and tests). */
    public byte[] toBytes(Capture metadata) throws CaptureFormatException {
        CaptureValidator.validate(metadata, this);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            writeTo(metadata, bytes);
        } catch (IOException e) {
            throw new IllegalStateException("writing to memory cannot fail", e);
        }
        return bytes.toByteArray();
    }

    private void writeTo(Capture metadata, OutputStream os) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        head.write(CaptureFormat.MAGIC);
        head.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN)
                .putInt(CaptureFormat.VERSION).putInt(0).array());
        CodedOutputStream coded = CodedOutputStream.newInstance(head);
        coded.useDeterministicSerialization();
        coded.writeUInt32NoTag(metadata.getSerializedSize());
        metadata.writeTo(coded);
        coded.flush();
        long headLength = head.size();
        long blobStart = CaptureFormat.alignUp(headLength, CaptureFormat.BLOB_ALIGNMENT);
        os.write(head.toByteArray());
        os.write(new byte[(int) (blobStart - headLength)]);
        WritableByteChannel channel = Channels.newChannel(os);
        for (int i = 0; i < blobs.size(); i++) {
            ByteBuffer blob = blobs.get(i);
            channel.write(blob.duplicate());
            if (i + 1 < blobs.size()) {
                long end = refs.get(i).getOffset() + blob.remaining();
                os.write(new byte[(int) (refs.get(i + 1).getOffset() - end)]);
            }
        }
        os.flush();
    }
}
