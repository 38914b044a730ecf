package org.replayfarm.evalnode.hostmodel.image;

import java.util.ArrayList;
import java.util.List;
import org.replayfarm.evalnode.hostmodel.InitialImages;
import org.replayfarm.evalnode.hostmodel.memory.GroupMemory;
import org.replayfarm.evalnode.hostmodel.wave.GuestFault;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.capture.TexelLayout;
import org.replayfarm.model.image.ImageDescriptor;
import org.replayfarm.model.image.ImageFormat;
import org.replayfarm.model.image.ImageResolver;
import org.replayfarm.model.image.TexelCodec;
import org.replayfarm.proto.Image;
import org.replayfarm.proto.ImageType;

/**
 * One captured image as one group sees it through one T#: the texels the group stored or changed
 * atomically itself (through {@link GroupMemory#storeTexel} and {@link GroupMemory#atomicTexel}), otherwise
 * the capture's initial texels. The T# gives the view: format, channel order, the levels BASE_LEVEL ..
 * LAST_LEVEL (view level l is the image's level BASE_LEVEL + l) and the layers BASE_ARRAY .. LAST_ARRAY for
 * array and cube types (view layer s is the image's layer BASE_ARRAY + s; a 1D, 2D or 3D view has the one
 * layer BASE_ARRAY). A 128-bit T# (R128) has no word 4, so no BASE_ARRAY or LAST_ARRAY: it views every
 * captured layer. The captured image gives the texel layout and the extents.
 *
 * <p>A texel the view names outside itself (a coordinate at or past the level's extent, a level past
 * LAST_LEVEL, a layer past the view's) reads as absent: loads return 0 and stores are dropped, as the
 * hardware does for out-of-range image accesses (RDNA 2 ISA, "Image memory": out-of-range reads return
 * zero, writes are discarded). A level or layer inside the view that the capture does not hold is a fault
 * naming it: the device would read memory the capture did not keep.
 *
 * <p>An MSAA T# (TYPE 14, 15) views a multisampled image: LAST_LEVEL holds log2 of its samples (which must be
 * the captured image's), the view has one level, and a texel's samples lie one after another (the capture's
 * layout); a sample index past the samples reads as absent. A T# whose FORMAT is 0 (invalid) is a null
 * descriptor ({@link #isNull}): RADV writes one for a multisampled image without FMASK, and ACO's code loads
 * through it and discards what comes back.
 */
final class ImageView {
    final int index;
    final Image image;
    final ImageDescriptor descriptor;
    final ImageFormat format;
    private final InitialImages.Entry entry;
    private final GroupMemory memory;

    private ImageView(int index, Image image, ImageDescriptor descriptor, ImageFormat format, InitialImages.Entry entry,
                      GroupMemory memory) {
        this.index = index;
        this.image = image;
        this.descriptor = descriptor;
        this.format = format;
        this.entry = entry;
        this.memory = memory;
    }

    /** The view a wave's T# (8 SGPRs from {@code srsrc}, or 4 with r128) gives, or a fault saying why none. */
    static ImageView of(Wave w, int srsrc, boolean r128) {
        int[] words = new int[r128 ? 4 : 8];
        for (int i = 0; i < words.length; i++) {
            words[i] = w.sgpr(srsrc + i);
        }
        ImageDescriptor d = ImageDescriptor.decode(words);
        if (d.type() < ImageDescriptor.TYPE_1D) {
            throw new GuestFault(String.format("s[%d:%d] is not an image resource the host model reads: its TYPE field "
                    + "[127:124] is %d (8..15: 1D, 2D, 3D, cube, 1D array, 2D array, 2D MSAA, 2D MSAA array;"
                    + " below 8 is a buffer or no resource) (word 3 0x%08x)", srsrc, srsrc + words.length - 1, d.type(),
                    words[3]));
        }
        InitialImages images = w.group().images();
        List<Image> list = new ArrayList<>(images.size());
        for (InitialImages.Entry e : images.images()) {
            list.add(e.image());
        }
        int index;
        ImageFormat format;
        try {
            index = new ImageResolver(list).resolve(d);
            format = d.imageFormat();
        } catch (IllegalArgumentException e) {
            throw new GuestFault("image descriptor s[" + srsrc + ":" + (srsrc + words.length - 1) + "] " + d + ": "
                    + e.getMessage());
        }
        InitialImages.Entry entry = images.get(index);
        int captured = Math.max(1, entry.image().getSamples());
        if (d.samples() != captured) {
            throw new GuestFault("image descriptor " + d + " views captured image " + index + " ('"
                    + entry.image().getName() + "', " + captured + " sample(s) a texel) with " + d.samples()
                    + " sample(s): sample counts differ");
        }
        if (format.bytesPerTexel() != entry.bytesPerTexel()) {
            throw new GuestFault("image descriptor " + d + " views captured image " + index + " (" + entry.image()
                    .getDataFormat() + ", " + entry.bytesPerTexel() + " bytes a texel) as " + format + " ("
                    + format.bytesPerTexel() + " bytes): texel sizes differ");
        }
        return new ImageView(index, entry.image(), d, format, entry, w.group().memory());
    }

    /** Whether the T# at {@code srsrc} is a null descriptor: FORMAT (word 1 [28:20]) 0, invalid. */
    static boolean isNull(Wave w, int srsrc) {
        return (w.sgpr(srsrc + 1) >>> 20 & 0x1FF) == 0;
    }

    /** Samples a texel of the view holds (1 unless MSAA). */
    int samples() {
        return descriptor.samples();
    }

    /** The image level a view level names, or -1 when it lies outside the view (before 0 or past LAST_LEVEL). */
    int imageLevel(int viewLevel) {
        int level = descriptor.baseLevel() + viewLevel;
        return viewLevel < 0 || level > descriptor.lastLevel() ? -1 : level;
    }

    /** The captured level a view level names, or -1 outside the view; a fault when the capture lacks it. */
    int level(int viewLevel) {
        int level = imageLevel(viewLevel);
        if (level >= image.getMipLevels()) {
            throw new GuestFault(String.format("image %d ('%s') through %s: level %d (view level %d) is inside the view "
                    + "but the capture holds %d level(s) of the image", index, image.getName(), descriptor, level,
                    viewLevel, image.getMipLevels()));
        }
        return level;
    }

    /** Levels in the view: LAST_LEVEL - BASE_LEVEL + 1 (0 or less when BASE_LEVEL is past LAST_LEVEL). */
    int levels() {
        return descriptor.levels();
    }

    int width(int level) {
        return (int) TexelLayout.mipExtent(image.getWidth(), level);
    }

    int height(int level) {
        return (int) TexelLayout.mipExtent(Math.max(1, image.getHeight()), level);
    }

    int depth(int level) {
        return image.getType() == ImageType.IMAGE_3D ? (int) TexelLayout.mipExtent(image.getDepth(), level) : 1;
    }

    /** The captured image's texels (the fast tier reads them without a copy). */
    InitialImages.Entry entry() {
        return entry;
    }

    /** The view's first layer of the image. */
    int firstLayer() {
        return descriptor.wide() && descriptor.type() != ImageDescriptor.TYPE_3D ? descriptor.baseArray() : 0;
    }

    /** Layers in the view (array and cube types: LAST_ARRAY - BASE_ARRAY + 1; others 1; R128: the captured layers). */
    int layers() {
        int type = descriptor.type();
        boolean arrayed = type == ImageDescriptor.TYPE_CUBE || type == ImageDescriptor.TYPE_1D_ARRAY
                || type == ImageDescriptor.TYPE_2D_ARRAY || type == ImageDescriptor.TYPE_2D_MSAA_ARRAY;
        if (!arrayed) {
            return 1;
        }
        return descriptor.wide() ? descriptor.layers() - descriptor.baseArray() : Math.max(1, image.getLayers());
    }

    /** The texel index, or -1 when the coordinates lie outside the level (or the level or layer outside the view). */
    long texel(int level, int layer, int x, int y, int z) {
        return texel(level, layer, x, y, z, 0);
    }

    /** As {@link #texel(int, int, int, int, int)}, for sample {@code sample} of a multisampled view's texel. */
    long texel(int level, int layer, int x, int y, int z, int sample) {
        if (sample < 0 || sample >= samples() || level < 0 || x < 0 || y < 0 || z < 0 || layer < 0 || x >= width(level) || y >= height(level)
                || z >= depth(level) || layer >= layers()) {
            return -1;
        }
        int physical = firstLayer() + layer;
        if (physical >= Math.max(1, image.getLayers())) {
            throw new GuestFault(String.format("image %d ('%s') through %s: layer %d (view layer %d) is inside the view "
                    + "but the capture holds %d layer(s) of the image", index, image.getName(), descriptor, physical, layer,
                    Math.max(1, image.getLayers())));
        }
        return TexelLayout.texelIndex(image, new TexelLayout.Texel(level, physical, x, y, z)) + sample;
    }

    /** The texel's bytes as this group sees them. */
    byte[] read(long texel) {
        byte[] own = memory.ownTexel(index, texel);
        if (own != null) {
            return own;
        }
        int bpt = entry.bytesPerTexel();
        byte[] out = new byte[bpt];
        entry.texels().get(Math.toIntExact(texel * bpt), out);
        return out;
    }

    void write(long texel, byte[] value, int lane) {
        memory.storeTexel(index, texel, value, lane);
    }

    /** The write of an image atomic: {@code value} is the texel's new bytes, the rest its contribution. */
    void writeAtomic(long texel, byte[] value, String op, long operand, long comparand, long returned, int lane) {
        memory.atomicTexel(index, texel, value, op, operand, comparand, returned, lane);
    }

    /** The four channel register values of a texel, in storage order (no DST_SEL applied). */
    int[] channels(long texel) {
        return TexelCodec.decode(format, read(texel), 0);
    }

    /** Applies the T#'s DST_SEL to storage-order channels: result c is the channel select c names (or 0 / 1). */
    int[] select(int[] channels) {
        int[] out = new int[4];
        int one = format.integer() ? 1 : Float.floatToRawIntBits(1.0f);
        for (int c = 0; c < 4; c++) {
            int sel = descriptor.dstSel()[c];
            out[c] = sel >= 4 ? channels[sel - 4] : sel == 1 ? one : 0;
        }
        return out;
    }
}
