package org.replayfarm.model.build;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.replayfarm.model.elf.CodeObjectException;
import org.replayfarm.model.elf.KernelMetadata;
import org.replayfarm.model.image.ImageFormat;
import org.replayfarm.proto.ChannelSelect;
import org.replayfarm.proto.DataFormat;
import org.replayfarm.proto.ImageType;
import org.replayfarm.proto.NumericFormat;

/**
 * OpenCL C image and sampler parameters ({@code .value_kind: image} / {@code sampler} in the kernel's metadata) as
 * ROCm's OpenCL runtime passes them: the kernarg slot holds the address of an object in constant memory.
 *
 * <p>The image object is 48 bytes, as the device libraries read it (ockl's {@code __ockl_image_*} and
 * {@code __ockl_get_image_*} in rocm-device-libs, read from the bitcode): words 0..7 the 256-bit T#, word 8 the
 * channel data type and word 9 the channel order as HSA's image extension numbers them
 * ({@code hsa_ext_image_channel_type_t}, {@code hsa_ext_image_channel_order_t}; opencl.bc maps them to the
 * {@code CLK_*} values with two tables), word 10 the width (get_image_width, and the sampler's nearest-filter
 * coordinate snap), word 11 zero. Height, depth and array size come from the T# (word 2 HEIGHT, word 4 DEPTH).
 * The sampler object is the 128-bit S# (the library tests word 0 bit 15, FORCE_UNNORMALIZED, and word 2 bit 20,
 * the bilinear magnification filter).
 */
public final class OpenClImages {
    /** Bytes of ROCm's image object: the T# and four metadata words. */
    static final int IMAGE_OBJECT_BYTES = 48;

    private OpenClImages() {
    }

    /**
     * The image type each argument's image is laid out as (null where the argument is not an image given to an
     * {@code image} parameter), after checking that every image and sampler parameter is given its kind: an image
     * of the parameter's dimension for {@code image1d_t}/{@code image2d_t}/{@code image3d_t}, a sampler for
     * {@code sampler_t}, and no image or sampler for a by-value parameter.
     */
    static ImageType[] layoutTypes(KernelMetadata meta, List<KernelArg> args) throws CodeObjectException {
        ImageType[] types = new ImageType[args.size()];
        List<KernelMetadata.Arg> explicit = meta.explicitArgs();
        for (int i = 0; i < Math.min(args.size(), explicit.size()); i++) {
            KernelMetadata.Arg slot = explicit.get(i);
            KernelArg given = args.get(i);
            String what = "argument " + i + " (" + CaptureBuilder.describe(List.of(slot)) + ")";
            boolean image = slot.valueKind().equals("image");
            boolean sampler = slot.valueKind().equals("sampler");
            if (image) {
                if (!(given instanceof KernelArg.ImageArg im)) {
                    throw new CodeObjectException(what + " is an OpenCL " + typeName(slot) + "; give image:PNG or "
                            + "image:raw:PATH,WxH[xD],format=FMT, not '" + given.describe() + "'");
                }
                types[i] = imageType(what, slot, im);
            } else if (sampler && !(given instanceof KernelArg.SamplerArg)) {
                throw new CodeObjectException(what + " is an OpenCL sampler_t; give sampler:FILTER,ADDRESS_MODE"
                        + "[,unnormalized], not '" + given.describe() + "'");
            } else if (!sampler && given instanceof KernelArg.SamplerArg && !slot.valueKind().equals("global_buffer")) {
                throw new CodeObjectException(what + " is a " + slot.valueKind() + ", not a sampler_t; '"
                        + given.describe() + "' does not fit it");
            } else if (given instanceof KernelArg.ImageArg && !slot.valueKind().equals("global_buffer")) {
                throw new CodeObjectException(what + " is a " + slot.valueKind() + ", not an image; '"
                        + given.describe() + "' does not fit it");
            }
        }
        return types;
    }

    private static String typeName(KernelMetadata.Arg slot) {
        return slot.typeName().isEmpty() ? "image" : slot.typeName();
    }

    private static ImageType imageType(String what, KernelMetadata.Arg slot, KernelArg.ImageArg im)
            throws CodeObjectException {
        String t = typeName(slot);
        String size = im.width() + "x" + im.height() + (im.depth() > 1 ? "x" + im.depth() : "")
                + (im.layers() > 1 ? ", " + im.layers() + " layers" : "");
        if (t.contains("buffer") || t.contains("depth") || t.contains("msaa")) {
            throw new CodeObjectException(what + ": " + t + " parameters are not supported by --arg image: (image1d_t, "
                    + "image2d_t, image3d_t, image1d_array_t and image2d_array_t are)");
        }
        if (im.samples() > 1) {
            throw new CodeObjectException(what + ": '" + im.describe() + "' is multisampled (samples=" + im.samples()
                    + "); OpenCL images here are single-sampled");
        }
        boolean array = t.contains("array");
        if (!array && im.layers() > 1) {
            throw new CodeObjectException(what + " is not an image array; '" + im.describe() + "' has " + im.layers()
                    + " layers");
        }
        if (t.contains("image1d")) {
            if (im.height() != 1 || im.depth() != 1) {
                throw new CodeObjectException(what + " is a 1D image" + (array ? " array" : "") + "; '" + im.describe()
                        + "' is " + size + " (give image:raw:PATH,Wx1" + (array ? ",layers=N" : "") + ",format=FMT)");
            }
            return array ? ImageType.IMAGE_1D_ARRAY : ImageType.IMAGE_1D;
        }
        if (t.contains("image2d")) {
            if (im.depth() != 1) {
                throw new CodeObjectException(what + " is a 2D image" + (array ? " array" : "") + "; '" + im.describe()
                        + "' is a 3D image (" + size + ")");
            }
            return array ? ImageType.IMAGE_2D_ARRAY : ImageType.IMAGE_2D;
        }
        if (t.contains("image3d")) {
            return ImageType.IMAGE_3D;
        }
        throw new CodeObjectException(what + ": " + t + " is not an image type --arg image: supports");
    }

    /** The 48-byte image object: the T#, then the channel data type, channel order and width. */
    static byte[] imageObject(int[] tsharp, ImageFormat format, ChannelSelect[] order, int width, String what)
            throws CodeObjectException {
        ByteBuffer b = ByteBuffer.allocate(IMAGE_OBJECT_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (int w : tsharp) {
            b.putInt(w);
        }
        b.putInt(32, channelType(format, what));
        b.putInt(36, channelOrder(format, order, what));
        b.putInt(40, width);
        return b.array();
    }

    /** The {@code CLK_*} channel data type of an HSA channel type (opencl.bc's table for get_image_channel_data_type). */
    private static final int[] CL_CHANNEL_TYPE = {0x10D0, 0x10D1, 0x10D2, 0x10D3, 0x10DF, 0x10D5, 0x10D4, 0x10D6, 0x10D7,
        0x10D8, 0x10D9, 0x10DA, 0x10DB, 0x10DC, 0x10DD, 0x10DE};
    /** The {@code CLK_*} channel order of an HSA channel order (opencl.bc's table for get_image_channel_order). */
    private static final int[] CL_CHANNEL_ORDER = {0x10B1, 0x10B0, 0x10BA, 0x10B2, 0x10BB, 0x10B3, 0x10B4, 0x10BC, 0x10B5,
        0x10B6, 0x10B7, 666, 0x10BF, 0x10C0, 0x10C1, 0x10C2, 0x10B8, 0x10B9, 0x10BD, 0x10BE};

    /** What get_image_channel_data_type returns for an image of this format. */
    public static int clChannelDataType(ImageFormat f, String what) throws CodeObjectException {
        return CL_CHANNEL_TYPE[channelType(f, what)];
    }

    /** What get_image_channel_order returns for an image of this format and channel order. */
    public static int clChannelOrder(ImageFormat f, ChannelSelect[] order, String what) throws CodeObjectException {
        return CL_CHANNEL_ORDER[channelOrder(f, order, what)];
    }

    /** {@code hsa_ext_image_channel_type_t} of a format (CLK_UNORM_INT8 and kin once opencl.bc maps it). */
    static int channelType(ImageFormat f, String what) throws CodeObjectException {
        int bits = f.channelBits()[0];
        boolean uniform = java.util.Arrays.stream(f.channelBits()).allMatch(x -> x == bits);
        NumericFormat n = f.numeric();
        if (uniform) {
            switch (bits) {
                case 8:
                    switch (n) {
                        case NUM_SNORM: return 0;
                        case NUM_UNORM: case NUM_SRGB: return 2;
                        case NUM_SINT: return 8;
                        case NUM_UINT: return 11;
                        default: break;
                    }
                    break;
                case 16:
                    switch (n) {
                        case NUM_SNORM: return 1;
                        case NUM_UNORM: return 3;
                        case NUM_SINT: return 9;
                        case NUM_UINT: return 12;
                        case NUM_FLOAT: return 14;
                        default: break;
                    }
                    break;
                case 32:
                    switch (n) {
                        case NUM_SINT: return 10;
                        case NUM_UINT: return 13;
                        case NUM_FLOAT: return 15;
                        default: break;
                    }
                    break;
                default:
                    break;
            }
        }
        if (f.data() == DataFormat.FMT_2_10_10_10 && n == NumericFormat.NUM_UNORM) {
            return 7;
        }
        throw new CodeObjectException(what + ": format " + f + " has no OpenCL channel data type (UNORM, SNORM, "
                + "UINT and SINT of 8 or 16 bits, 32-bit UINT, SINT and FLOAT, 16-bit FLOAT)");
    }

    /**
     * {@code hsa_ext_image_channel_order_t} of a format and its channel order: R, RG, RGBA (sRGBA for an sRGB format)
     * as stored, BGRA for {@code order=ZYXW} of four channels.
     */
    static int channelOrder(ImageFormat f, ChannelSelect[] order, String what) throws CodeObjectException {
        boolean srgb = f.numeric() == NumericFormat.NUM_SRGB;
        String o = selects(order);
        return switch (f.channels()) {
            case 1 -> 1;
            case 2 -> 3;
            case 4 -> o.equals("ZYXW") ? (srgb ? 15 : 9) : srgb ? 14 : 8;
            default -> throw new CodeObjectException(what + ": format " + f + " has " + f.channels()
                    + " channels; an OpenCL image has 1, 2 or 4");
        };
    }

    private static String selects(ChannelSelect[] order) {
        StringBuilder s = new StringBuilder();
        for (ChannelSelect c : order) {
            s.append(c.name().substring(4));
        }
        return s.toString();
    }
}
