package org.replayfarm.gpunode.translate.image;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.capture.TexelLayout;
import org.replayfarm.model.image.ImageDescriptor;
import org.replayfarm.proto.Image;

/**
 * The launch bundle's image section: how a capture's images travel to the translated program, which reads
 * and writes their texels in place (rt_image.h, {@code rt_img_section}), and how the final texels come back.
 * The lead's bundle writer embeds {@link #section} as it lies; the runner hands the section back after the
 * run and {@link #texels} reads every image's final texels out of it.
 *
 * <p>Layout (little-endian): {@code u32 magic "RIMG" (0x474D4952), u32 version 1, u32 image count, u32 16};
 * then one 64-byte record per image in the capture's order: {@code u64 guest address, u32 index, u32 T# TYPE
 * code (8 1D .. 13 2D array, 14 2D MSAA, 15 2D MSAA array), u32 DataFormat, u32 NumericFormat (the capture
 * protocol's numbers), u32 width, height, depth, layers (each at least 1), u16 mip levels (as captured), u16
 * samples a texel (1 single-sampled; a texel's samples one after another), u32 bytes per texel, u64 texel
 * offset (from the section's start, 16-aligned), u64 texel bytes}; then the texels, each image's at its
 * offset in the capture's layout ({@link TexelLayout}). BVH nodes are not here: they are guest memory (a
 * captured range), and the BVH instructions read them through the range table.
 */
public final class ImageBundle {
    public static final int MAGIC = 0x474D4952;
    public static final int VERSION = 1;
    static final int HEADER = 16;
    static final int RECORD = 64;

    private ImageBundle() {
    }

    /** The section of a capture's images; empty when it has none. */
    public static byte[] section(CaptureFile capture) {
        List<Image> images = capture.metadata().getImagesList();
        List<ByteBuffer> texels = new ArrayList<>();
        for (Image im : images) {
            texels.add(capture.blob(im.getTexels()));
        }
        return section(images, texels);
    }

    /**
     * The section of {@code images} with their initial texels (each exactly {@link TexelLayout#totalBytes}).
     *
     * @throws IllegalArgumentException naming the image when its texel bytes, type or format do not fit
     */
    public static byte[] section(List<Image> images, List<ByteBuffer> texels) {
        if (images.isEmpty()) {
            return new byte[0];
        }
        if (images.size() != texels.size()) {
            throw new IllegalArgumentException(images.size() + " images but " + texels.size() + " texel blobs");
        }
        long at = HEADER + (long) RECORD * images.size();
        ByteBuffer head = ByteBuffer.allocate((int) at).order(ByteOrder.LITTLE_ENDIAN);
        head.putInt(MAGIC).putInt(VERSION).putInt(images.size()).putInt(HEADER);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (int i = 0; i < images.size(); i++) {
            Image im = images.get(i);
            ByteBuffer t = texels.get(i).duplicate();
            int bpt = TexelLayout.bytesPerTexel(im.getDataFormat());
            if (bpt == 0) {
                throw new IllegalArgumentException(what(im) + ": data format " + im.getDataFormat() + " has no texel size");
            }
            long want = TexelLayout.totalBytes(im);
            if (t.remaining() != want) {
                throw new IllegalArgumentException(what(im) + ": " + t.remaining() + " texel bytes, its extents and "
                        + "format take " + want);
            }
            int type;
            try {
                type = im.getSamples() > 1 ? ImageDescriptor.msaaTypeCode(im.getType())
                        : ImageDescriptor.typeCode(im.getType());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(what(im) + ": " + e.getMessage(), e);
            }
            long pad = (16 - (at + body.size()) % 16) % 16;
            for (long p = 0; p < pad; p++) {
                body.write(0);
            }
            long offset = at + body.size();
            head.putLong(im.getGuestAddress()).putInt(im.getIndex()).putInt(type).putInt(im.getDataFormatValue())
                    .putInt(im.getNumericFormatValue()).putInt(im.getWidth()).putInt(Math.max(1, im.getHeight()))
                    .putInt(Math.max(1, im.getDepth())).putInt(Math.max(1, im.getLayers()))
                    .putShort((short) im.getMipLevels()).putShort((short) Math.max(1, im.getSamples()))
                    .putInt(bpt).putLong(offset).putLong(want);
            byte[] bytes = new byte[t.remaining()];
            t.get(bytes);
            body.writeBytes(bytes);
        }
        byte[] out = new byte[Math.toIntExact(at + body.size())];
        System.arraycopy(head.array(), 0, out, 0, (int) at);
        System.arraycopy(body.toByteArray(), 0, out, (int) at, body.size());
        return out;
    }

    /**
     * The texels of every image in a section (the final ones when the runner hands it back), by capture
     * image index; empty for an empty section.
     *
     * @throws IllegalArgumentException when the bytes are not a section this class writes
     */
    public static SortedMap<Integer, ByteBuffer> texels(ByteBuffer section) {
        SortedMap<Integer, ByteBuffer> out = new TreeMap<>();
        ByteBuffer b = section.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (b.remaining() == 0) {
            return out;
        }
        int base = b.position();
        if (b.remaining() < HEADER || b.getInt(base) != MAGIC || b.getInt(base + 4) != VERSION) {
            throw new IllegalArgumentException("not an image section (magic or version wrong, " + b.remaining()
                    + " bytes)");
        }
        int count = b.getInt(base + 8);
        if (count < 0 || HEADER + (long) RECORD * count > b.remaining()) {
            throw new IllegalArgumentException("image section of " + b.remaining() + " bytes cannot hold " + count
                    + " records");
        }
        for (int i = 0; i < count; i++) {
            int r = base + HEADER + RECORD * i;
            int index = b.getInt(r + 8);
            long offset = b.getLong(r + 48);
            long bytes = b.getLong(r + 56);
            if (offset < 0 || bytes < 0 || offset + bytes > b.remaining()) {
                throw new IllegalArgumentException("image record " + i + " (image " + index + ") names bytes ["
                        + offset + ", " + (offset + bytes) + ") past the section's " + b.remaining());
            }
            ByteBuffer t = b.duplicate();
            t.position(base + (int) offset).limit(base + (int) (offset + bytes));
            out.put(index, t.slice().order(ByteOrder.LITTLE_ENDIAN));
        }
        return out;
    }

    private static String what(Image im) {
        return "image " + im.getIndex() + " ('" + im.getName() + "')";
    }
}
