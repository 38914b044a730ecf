package org.replayfarm.model.capture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.proto.Capture;

@Tag("unit")
class CaptureFileTest {
    @TempDir
    Path dir;

    private Path write(byte[] bytes) throws Exception {
        Path p = Files.createTempFile(dir, "c", ".capture");
        Files.write(p, bytes);
        return p;
    }

    @Test
    void a_written_capture_reads_back_with_the_same_metadata_and_blobs() throws Exception {
        SampleCapture sample = new SampleCapture();
        Path path = dir.resolve("s.capture");
        sample.writer.write(sample.metadata.build(), path);
        CaptureFile file = CaptureFile.open(path);
        assertEquals(sample.metadata.build(), file.metadata());
        Capture c = file.metadata();
        ByteBuffer range1 = file.blob(c.getRanges(1).getInitial());
        byte[] got = new byte[range1.remaining()];
        range1.get(got);
        assertArrayEquals(SampleCapture.filled(100, 7), got);
        assertEquals(0xBF810000, file.blob(c.getProgram().getCode()).getInt(4), "blobs read little-endian");
    }

    @Test
    void blobs_are_memory_mapped_page_aligned_views_not_heap_copies() throws Exception {
        SampleCapture sample = new SampleCapture();
        CaptureFile file = CaptureFile.open(write(sample.bytes()));
        for (var ref : BlobRefs.all(file.metadata()).values()) {
            assertTrue(file.blob(ref).isDirect(), "mapped buffers are direct");
            assertTrue(file.blob(ref).isReadOnly());
            assertEquals(0, ref.getOffset() % CaptureFormat.BLOB_ALIGNMENT);
        }
    }

    @Test
    void identical_inputs_give_byte_identical_files_and_identical_blobs_are_stored_once() throws Exception {
        byte[] first = new SampleCapture().bytes();
        byte[] second = new SampleCapture().bytes();
        assertArrayEquals(first, second);
        SampleCapture sample = new SampleCapture();
        // the recorded image equals the initial image: one blob, one reference
        Capture c = sample.metadata.build();
        assertEquals(c.getImages(0).getTexels(), c.getRuns(0).getImages(0).getTexels());
        assertEquals(CaptureFile.open(write(first)).identity(),
                Sha256.hex(Sha256.of(second)));
    }

    @Test
    void the_file_starts_with_magic_and_version_then_the_length_delimited_metadata() throws Exception {
        byte[] bytes = new SampleCapture().bytes();
        assertArrayEquals(CaptureFormat.MAGIC, Arrays.copyOf(bytes, 8));
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(CaptureFormat.VERSION, b.getInt(8));
        var in = com.google.protobuf.CodedInputStream.newInstance(bytes, 16, bytes.length - 16);
        int length = in.readRawVarint32();
        Capture parsed = Capture.parseFrom(in.readRawBytes(length));
        assertEquals(new SampleCapture().metadata.build(), parsed);
    }

    @Test
    void a_truncated_file_at_every_length_is_refused_with_a_named_field() throws Exception {
        byte[] bytes = new SampleCapture().bytes();
        // every prefix in the header and metadata, then page steps through the blobs
        for (int length = 0; length < bytes.length; length += length < 600 ? 1 : 509) {
            Path p = write(Arrays.copyOf(bytes, length));
            CaptureFormatException e = assertThrows(CaptureFormatException.class, () -> CaptureFile.open(p),
                    "truncated to " + length);
            assertTrue(e.getMessage().startsWith(e.field() + ": "), e.getMessage());
            assertTrue(e.field().startsWith("header") || e.field().startsWith("metadata")
                    || e.field().startsWith("program") || e.field().startsWith("ranges")
                    || e.field().startsWith("images") || e.field().startsWith("runs"), e.field());
        }
    }

    @Test
    void a_file_cut_inside_the_last_blob_names_that_blob_and_says_past_the_end() throws Exception {
        byte[] bytes = new SampleCapture().bytes();
        Path p = write(Arrays.copyOf(bytes, bytes.length - 1));
        CaptureFormatException e = assertThrows(CaptureFormatException.class, () -> CaptureFile.open(p));
        assertTrue(e.getMessage().contains("past the end"), e.getMessage());
        assertTrue(e.field().startsWith("runs[0]") || e.field().startsWith("images[0]"), e.field());
    }

    /** A folder or a pipe named as a capture: one line naming it (a pipe blocked the open until a writer came). */
    @Test
    void a_folder_or_a_pipe_is_refused_naming_it() throws Exception {
        java.io.IOException folder = assertThrows(java.io.IOException.class, () -> CaptureFile.open(dir));
        assertEquals(dir + " is a folder, not a capture file", folder.getMessage());
        Path fifo = dir.resolve("fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertEquals(0, mkfifo.waitFor());
        var pipe = java.util.concurrent.CompletableFuture.supplyAsync(() -> assertThrows(java.io.IOException.class,
                () -> CaptureFile.open(fifo)));
        assertEquals(fifo + " is not a regular file (a pipe or a device), not a capture file",
                pipe.get(10, java.util.concurrent.TimeUnit.SECONDS).getMessage());
    }

    @Test
    void wrong_magic_is_refused() throws Exception {
        byte[] bytes = new SampleCapture().bytes();
        bytes[0] = 'X';
        CaptureFormatException e = assertThrows(CaptureFormatException.class, () -> CaptureFile.open(write(bytes)));
        assertEquals("header.magic", e.field());
    }

    @Test
    void an_unknown_format_version_is_refused() throws Exception {
        byte[] bytes = new SampleCapture().bytes();
        bytes[8] = 2;
        CaptureFormatException e = assertThrows(CaptureFormatException.class, () -> CaptureFile.open(write(bytes)));
        assertEquals("header.version", e.field());
        assertTrue(e.getMessage().contains("version 2"), e.getMessage());
    }

    @Test
    void a_changed_blob_byte_is_a_hash_mismatch_naming_the_blob() throws Exception {
        SampleCapture sample = new SampleCapture();
        byte[] bytes = sample.bytes();
        Capture c = sample.metadata.build();
        // find the start of the blob section from the metadata length
        var in = com.google.protobuf.CodedInputStream.newInstance(bytes, 16, bytes.length - 16);
        int length = in.readRawVarint32();
        long section = CaptureFormat.alignUp(16 + in.getTotalBytesRead() + length, CaptureFormat.BLOB_ALIGNMENT);
        long at = section + c.getRanges(1).getInitial().getOffset() + 5;
        bytes[(int) at] ^= 0x40;
        CaptureFormatException e = assertThrows(CaptureFormatException.class, () -> CaptureFile.open(write(bytes)));
        assertEquals("ranges[1].initial.sha256", e.field());
        assertTrue(e.getMessage().contains("hash mismatch"), e.getMessage());
    }

    @Test
    void a_blob_reference_past_the_end_of_the_file_is_refused() throws Exception {
        SampleCapture sample = new SampleCapture();
        Capture good = sample.metadata.build();
        var bad = good.toBuilder();
        bad.getRangesBuilder(0).getInitialBuilder().setOffset(1L << 40);
        byte[] bytes = rewriteMetadata(sample.bytes(), bad.build());
        CaptureFormatException e = assertThrows(CaptureFormatException.class, () -> CaptureFile.open(write(bytes)));
        assertEquals("ranges[0].initial", e.field());
        assertTrue(e.getMessage().contains("past the end of the file"), e.getMessage());
    }

    @Test
    void random_corruption_is_always_a_capture_format_error_never_a_crash() throws Exception {
        byte[] good = new SampleCapture().bytes();
        Random random = new Random(1234);
        for (int trial = 0; trial < 300; trial++) {
            byte[] bytes = good.clone();
            int flips = 1 + random.nextInt(4);
            for (int f = 0; f < flips; f++) {
                // most corruption in the header and metadata, where parsing happens
                int at = random.nextInt(random.nextBoolean() ? 400 : bytes.length);
                bytes[at] = (byte) random.nextInt(256);
            }
            Path p = write(bytes);
            try {
                CaptureFile.open(p);
            } catch (CaptureFormatException expected) {
                assertTrue(expected.getMessage().startsWith(expected.field() + ": "));
            }
        }
    }

    /** Replaces the metadata of a capture file, keeping its blob section where it was. */
    static byte[] rewriteMetadata(byte[] file, Capture metadata) throws Exception {
        var in = com.google.protobuf.CodedInputStream.newInstance(file, 16, file.length - 16);
        int length = in.readRawVarint32();
        long section = CaptureFormat.alignUp(16 + in.getTotalBytesRead() + length, CaptureFormat.BLOB_ALIGNMENT);
        var head = new java.io.ByteArrayOutputStream();
        head.write(file, 0, 16);
        metadata.writeDelimitedTo(head);
        if (head.size() > section) {
            throw new IllegalStateException("new metadata does not fit before the blob section");
        }
        byte[] out = file.clone();
        Arrays.fill(out, 0, (int) section, (byte) 0);
        System.arraycopy(head.toByteArray(), 0, out, 0, head.size());
        return out;
    }
}
