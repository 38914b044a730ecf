package org.replayfarm.cli.harness;

import java.util.Locale;
import org.replayfarm.model.build.KernelArg;
import org.replayfarm.model.build.OpenClImages;
import org.replayfarm.model.elf.CodeObjectException;
import org.replayfarm.model.image.SamplerDescriptor;

/**
 * How {@code capture native-run} passes {@code image:} and {@code sampler:} arguments to the native harness's own
 * image implementation (native-image.h): an image as its level-0 texels with its size, OpenCL channel data type
 * and channel order; a sampler as its {@code CLK_*} bits.
 */
public final class NativeImages {
    /**
     * What native-run says after a run with a linear sampler: the device's 8-bit sub-texel fraction against the
     * reference's float weights (docs/captures.md, "The native reference's images").
     */
    public static final String LINEAR_HINT = "linear filtering: the device weighs taps with 8-bit sub-texel fractions, this run "
            + "with float weights; compare with --abs 0.004 for values in [0, 1] in 2D (span/256; 3*span/512 in 3D), "
            + "see docs/captures.md";

    private NativeImages() {
    }

    /** Whether the argument is a sampler that filters linearly. */
    public static boolean filtersLinearly(KernelArg a) {
        return a instanceof KernelArg.SamplerArg s && (s.sampler().magFilter() == SamplerDescriptor.Filter.BILINEAR
                || s.sampler().minFilter() == SamplerDescriptor.Filter.BILINEAR);
    }

    /** The C expression of an image whose texels the harness holds in {@code __replay_buf[buffer]}. */
    public static String image(KernelArg.ImageArg im, int buffer) {
        String what = "argument '" + im.describe() + "'";
        if (im.layers() > 1) {
            throw new IllegalArgumentException(what + ": image arrays are not in the native reference (the host model and "
                    + "the translation run them); compare with a device run instead");
        }
        try {
            return String.format(Locale.ROOT, "__replay_image_make(__replay_buf[%d], %d, %d, %d, 0x%x, 0x%x)", buffer,
                    im.width(), im.height(), im.depth(), OpenClImages.clChannelDataType(im.format(), what),
                    OpenClImages.clChannelOrder(im.format(), im.order(), what));
        } catch (CodeObjectException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
    }

    /** The level-0 texels (the harness samples level 0: OpenCL C's read_image* without a LOD). */
    public static byte[] levelZero(KernelArg.ImageArg im) {
        int bytes = im.width() * im.height() * im.depth() * im.format().bytesPerTexel();
        return java.util.Arrays.copyOf(im.texels(), bytes);
    }

    /**
     * A sampler's {@code CLK_*} bits: normalized coordinates unless {@code unnormalized}; point as
     * CLK_FILTER_NEAREST, bilinear as CLK_FILTER_LINEAR; clamp as CLK_ADDRESS_CLAMP_TO_EDGE, border (transparent
     * black) as CLK_ADDRESS_CLAMP, wrap as CLK_ADDRESS_REPEAT and mirror as CLK_ADDRESS_MIRRORED_REPEAT. The other
     * modes and filters have no OpenCL sampler and are refused naming the argument.
     */
    public static String sampler(KernelArg.SamplerArg s) {
        SamplerDescriptor d = s.sampler();
        String what = "argument '" + s.describe() + "': ";
        if (d.clampX() != d.clampY() || d.clampY() != d.clampZ() || d.magFilter() != d.minFilter()) {
            throw new IllegalArgumentException(what + "an OpenCL sampler has one filter and one addressing mode");
        }
        int bits = d.forceUnnormalized() ? 0 : 1;
        bits |= switch (d.magFilter()) {
            case POINT -> 0x10;
            case BILINEAR -> 0x20;
            default -> throw new IllegalArgumentException(what + "filter " + d.magFilter() + " has no OpenCL sampler");
        };
        bits |= switch (d.clampX()) {
            case CLAMP_LAST_TEXEL -> 2;
            case CLAMP_BORDER -> {
                if (d.borderColor() != SamplerDescriptor.BorderColor.TRANSPARENT_BLACK) {
                    throw new IllegalArgumentException(what + "CLK_ADDRESS_CLAMP's border is transparent black, not "
                            + d.borderColor());
                }
                yield 4;
            }
            case WRAP -> 6;
            case MIRROR -> 8;
            default -> throw new IllegalArgumentException(what + "address mode " + d.clampX() + " has no OpenCL "
                    + "sampler (clamp, border, wrap and mirror do)");
        };
        return String.format(Locale.ROOT, "(sampler_t) 0x%xu", bits);
    }
}
