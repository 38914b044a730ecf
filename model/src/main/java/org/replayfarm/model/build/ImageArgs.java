package org.replayfarm.model.build;

import java.awt.image.BufferedImage;
import java.awt.image.Raster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import javax.imageio.ImageIO;
import org.replayfarm.model.image.ImageFormat;
import org.replayfarm.model.image.SamplerDescriptor;
import org.replayfarm.model.image.TexelCodec;
import org.replayfarm.proto.ChannelSelect;

/**
 * Parsing of {@code --arg image:...} and {@code --arg sampler:...}.
 *
 * <ul>
 * <li>{@code image:PATH[,format=FMT][,order=XYZW][,mips=N]}: a PNG (read with javax.imageio). Its red,
 * green, blue and alpha become channels x, y, z and w as stored (a grey PNG gives grey in x, y and z).
 * The default format is 8_8_8_8_UNORM; 8-bit UNORM and sRGB formats take the PNG's 8-bit samples as they
 * are; UINT/SINT formats take the integer samples; the others take each sample as value / max, converted
 * by the format's write rule. {@code mips=N} adds N - 1 levels, each a 2x2 box average of the one above
 * (in channel values, then converted).</li>
 * <li>{@code image:raw:PATH,WxH[xD][,layers=N][,format=FMT][,order=..][,mips=N]}: texels exactly as the file
 * holds them, in the format's layout, every level mip-major (a 3D image, WxHxD, slice by slice in each level;
 * an arrayed one, {@code layers=N}, layer by layer in each level: a cube's six faces +X, -X, +Y, -Y, +Z, -Z);
 * the file must be exactly that long. The format is
 * required (there is no default for raw texels). {@code samples=N} (2, 4, 8 or 16) makes it multisampled:
 * each texel holds its N samples in order, one level.</li>
 * <li>{@code order=XYZW}: the T#'s DST_SEL, one letter per result channel from X, Y, Z, W, 0, 1: the
 * texels stay as the file gives them (as the binding hands them to the device) and the reader applies
 * the order once.</li>
 * <li>{@code sampler:FILTER[/MIN_FILTER],ADDRESS_MODE[/MODE_Y[/MODE_Z]][,unnormalized][,border=BORDER][,mip=MIP]}: FILTER point or
 * bilinear (magnification, then minification when two are given; Y and Z take X's mode, Z Y's, when not given);
 * ADDRESS_MODE wrap, mirror, clamp (to the last texel), mirror_once, clamp_half_border,
 * mirror_once_half_border, border, mirror_once_border; BORDER transparent_black (default), opaque_black
 * or opaque_white; MIP the S#'s MIP_FILTER: none (default: level 0 only), nearest (the nearest level) or linear
 * (between the two nearest levels).</li>
 * </ul>
 */
final class ImageArgs {
    private ImageArgs() {
    }

    static KernelArg.ImageArg parseImage(String text, String value) {
        String[] parts = value.split(",");
        boolean raw = parts[0].startsWith("raw:");
        Path path = Path.of(raw ? parts[0].substring(4) : parts[0]);
        ImageFormat format = null;
        String order = "XYZW";
        int mips = 1;
        int width = 0;
        int height = 0;
        int depth = 1;
        int layers = 1;
        int samples = 1;
        for (int i = 1; i < parts.length; i++) {
            String p = parts[i].trim();
            if (raw && i == 1 && p.matches("\\d+x\\d+(x\\d+)?")) {
                String[] size = p.split("x");
                width = Integer.parseInt(size[0]);
                height = Integer.parseInt(size[1]);
                depth = size.length > 2 ? Integer.parseInt(size[2]) : 1;
            } else if (p.startsWith("format=")) {
                format = ImageFormat.parse(p.substring(7));
            } else if (p.startsWith("order=")) {
                order = p.substring(6).toUpperCase(Locale.ROOT);
                if (!order.matches("[XYZW01]{4}")) {
                    throw new IllegalArgumentException("argument '" + text + "': order '" + p.substring(6)
                            + "' must be four of X, Y, Z, W, 0, 1");
                }
            } else if (p.startsWith("mips=")) {
                mips = Integer.parseInt(p.substring(5));
            } else if (p.startsWith("samples=")) {
                samples = switch (p.substring(8)) {
                    case "1" -> 1;
                    case "2" -> 2;
                    case "4" -> 4;
                    case "8" -> 8;
                    case "16" -> 16;
                    default -> throw new IllegalArgumentException("argument '" + text + "': samples= takes 1, 2, 4, 8 "
                            + "or 16, not '" + p.substring(8) + "'");
                };
                if (!raw) {
                    throw new IllegalArgumentException("argument '" + text + "': a PNG has one sample a texel; give the "
                            + "samples as image:raw:PATH,WxH,samples=N");
                }
            } else if (p.startsWith("layers=")) {
                try {
                    layers = Integer.parseInt(p.substring(7));
                } catch (NumberFormatException e) {
                    layers = 0;
                }
                if (layers < 1 || layers > 8192) {
                    throw new IllegalArgumentException("argument '" + text + "': layers= takes 1 to 8192 (RDNA 2's 13-bit slice field)");
                }
                if (!raw) {
                    throw new IllegalArgumentException("argument '" + text + "': a PNG is one layer; give the layers as "
                            + "image:raw:PATH,WxH,layers=N");
                }
            } else {
                throw new IllegalArgumentException("argument '" + text + "': unknown image option '" + p + "' (expected "
                        + (raw ? "WxH as the second field, " : "") + "format=FMT, order=XYZW, mips=N, layers=N or samples=N)");
            }
        }
        ChannelSelect[] selects = new ChannelSelect[4];
        for (int c = 0; c < 4; c++) {
            selects[c] = switch (order.charAt(c)) {
                case 'X' -> ChannelSelect.SEL_X;
                case 'Y' -> ChannelSelect.SEL_Y;
                case 'Z' -> ChannelSelect.SEL_Z;
                case 'W' -> ChannelSelect.SEL_W;
                case '0' -> ChannelSelect.SEL_0;
                default -> ChannelSelect.SEL_1;
            };
        }
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(path);
        } catch (IOException e) {
            throw new IllegalArgumentException("argument '" + text + "': cannot read " + path + ": " + KernelArg.why(e));
        }
        if (raw) {
            if (width <= 0 || height <= 0 || depth <= 0) {
                throw new IllegalArgumentException("argument '" + text + "': a raw image needs its size as WxH after the path");
            }
            if (depth > 1 && layers > 1) {
                throw new IllegalArgumentException("argument '" + text + "': a 3D image (WxHxD) has no layers");
            }
            if (format == null) {
                throw new IllegalArgumentException("argument '" + text + "': a raw image needs format=FMT");
            }
            if (samples > 1 && (depth > 1 || mips > 1)) {
                throw new IllegalArgumentException("argument '" + text + "': a multisampled image is 2D (or a 2D array) "
                        + "of one level");
            }
            long want = 0;
            for (int l = 0; l < mips; l++) {
                want += (long) Math.max(1, width >> l) * Math.max(1, height >> l) * Math.max(1, depth >> l)
                        * layers * samples * format.bytesPerTexel();
            }
            if (bytes.length != want) {
                throw new IllegalArgumentException("argument '" + text + "': " + path + " holds " + bytes.length
                        + " bytes; " + width + "x" + height + (depth > 1 ? "x" + depth : "") + (layers > 1 ? ", " + layers + " layers," : "") + (samples > 1 ? " " + samples + " samples," : "") + " " + format + " with " + mips + " level(s) takes " + want);
            }
            return new KernelArg.ImageArg(path, "raw", format, width, height, depth, layers, mips, selects, bytes, samples);
        }
        BufferedImage png;
        try {
            png = ImageIO.read(new java.io.ByteArrayInputStream(bytes));
        } catch (IOException e) {
            throw new IllegalArgumentException("argument '" + text + "': " + path + " is not a readable image: " + e.getMessage());
        }
        if (png == null) {
            throw new IllegalArgumentException("argument '" + text + "': " + path + " is not an image javax.imageio reads (PNG)");
        }
        ImageFormat f = format != null ? format : ImageFormat.parse("8_8_8_8_UNORM");
        return new KernelArg.ImageArg(path, "png", f, png.getWidth(), png.getHeight(), 1, 1, mips, selects,
                texelsFromPng(png, f, mips), 1);
    }

    /** The PNG's channels (x, y, z, w per pixel) as doubles in sample units, and each channel's max sample. */
    private static byte[] texelsFromPng(BufferedImage png, ImageFormat f, int mips) {
        Raster r = png.getRaster();
        int bands = r.getNumBands();
        int w = png.getWidth();
        int h = png.getHeight();
        int bits = png.getColorModel().getComponentSize(0);
        double max = (1L << bits) - 1;
        double[][] level = new double[w * h][4];
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                double[] px = level[y * w + x];
                for (int c = 0; c < 4; c++) {
                    int band = bands >= 3 ? c : c < 3 ? 0 : 1;
                    px[c] = band < bands ? r.getSample(x, y, band) : max;
                }
            }
        }
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (int l = 0; l < mips; l++) {
            for (double[] px : level) {
                out.writeBytes(encode(f, px, max, bits));
            }
            if (l + 1 < mips) {
                int nw = Math.max(1, w / 2);
                int nh = Math.max(1, h / 2);
                double[][] next = new double[nw * nh][4];
                for (int y = 0; y < nh; y++) {
                    for (int x = 0; x < nw; x++) {
                        for (int c = 0; c < 4; c++) {
                            double sum = 0;
                            int n = 0;
                            for (int dy = 0; dy < 2; dy++) {
                                for (int dx = 0; dx < 2; dx++) {
                                    int sx = Math.min(w - 1, 2 * x + dx);
                                    int sy = Math.min(h - 1, 2 * y + dy);
                                    sum += level[sy * w + sx][c];
                                    n++;
                                }
                            }
                            next[y * nw + x][c] = sum / n;
                        }
                    }
                }
                level = next;
                w = nw;
                h = nh;
            }
        }
        return out.toByteArray();
    }

    private static byte[] encode(ImageFormat f, double[] px, double max, int bits) {
        int n = f.channels();
        boolean eightBitDirect = bits == 8 && (f.numeric() == org.replayfarm.proto.NumericFormat.NUM_UNORM
                || f.numeric() == org.replayfarm.proto.NumericFormat.NUM_SRGB) && f.channelBits()[0] == 8;
        if (eightBitDirect) {
            long[] raw = new long[n];
            for (int c = 0; c < n; c++) {
                raw[c] = Math.round(px[c]);
            }
            return TexelCodec.pack(f, raw);
        }
        int[] regs = new int[4];
        for (int c = 0; c < 4; c++) {
            regs[c] = f.integer() ? (int) Math.round(px[c]) : Float.floatToRawIntBits((float) (px[c] / max));
        }
        return TexelCodec.encode(f, regs);
    }

    static KernelArg.SamplerArg parseSampler(String text, String value) {
        String[] parts = value.split(",");
        if (parts.length < 2) {
            throw new IllegalArgumentException("argument '" + text + "': expected sampler:FILTER,ADDRESS_MODE");
        }
        // FILTER or MAG/MIN; ADDRESS_MODE or X/Y[/Z] (a missing Z takes Y's)
        String[] filters = parts[0].trim().split("/", -1);
        String[] modes = parts[1].trim().split("/", -1);
        if (filters.length > 2 || modes.length > 3) {
            throw new IllegalArgumentException("argument '" + text + "': expected FILTER[/MIN_FILTER],MODE[/MODE_Y[/MODE_Z]]");
        }
        SamplerDescriptor.Filter mag = filter(text, filters[0]);
        SamplerDescriptor.Filter min = filter(text, filters[filters.length - 1]);
        SamplerDescriptor.AddressMode mx = mode(text, modes[0]);
        SamplerDescriptor.AddressMode my = modes.length > 1 ? mode(text, modes[1]) : mx;
        SamplerDescriptor.AddressMode mz = modes.length > 2 ? mode(text, modes[2]) : my;
        boolean unnormalized = false;
        SamplerDescriptor.BorderColor border = SamplerDescriptor.BorderColor.TRANSPARENT_BLACK;
        int mip = 0;
        for (int i = 2; i < parts.length; i++) {
            String p = parts[i].trim().toLowerCase(Locale.ROOT);
            if (p.equals("unnormalized")) {
                unnormalized = true;
            } else if (p.startsWith("mip=")) {
                mip = switch (p.substring(4)) {
                    case "none" -> 0;
                    case "point", "nearest" -> 1;
                    case "linear" -> 2;
                    default -> throw new IllegalArgumentException("argument '" + text + "': mip filter '" + p.substring(4)
                            + "' is not none, nearest or linear");
                };
            } else if (p.startsWith("border=")) {
                border = switch (p.substring(7)) {
                    case "transparent_black" -> SamplerDescriptor.BorderColor.TRANSPARENT_BLACK;
                    case "opaque_black" -> SamplerDescriptor.BorderColor.OPAQUE_BLACK;
                    case "opaque_white" -> SamplerDescriptor.BorderColor.OPAQUE_WHITE;
                    default -> throw new IllegalArgumentException("argument '" + text + "': border '" + p.substring(7)
                            + "' is not transparent_black, opaque_black or opaque_white");
                };
            } else {
                throw new IllegalArgumentException("argument '" + text + "': unknown sampler option '" + parts[i] + "'");
            }
        }
        SamplerDescriptor plain = SamplerDescriptor.of(mag, mx, unnormalized, border);
        return new KernelArg.SamplerArg(value, new SamplerDescriptor(mx, my, mz, plain.word0Rest(), plain.minLod(),
                plain.maxLod(), plain.word1Rest(), plain.lodBias(), mag, min, plain.zFilter(), mip,
                plain.word2Rest(), plain.borderColorPtr(), border, plain.word3Rest()));
    }

    private static SamplerDescriptor.Filter filter(String text, String name) {
        return switch (name.trim().toLowerCase(Locale.ROOT)) {
            case "point", "nearest" -> SamplerDescriptor.Filter.POINT;
            case "bilinear", "linear" -> SamplerDescriptor.Filter.BILINEAR;
            default -> throw new IllegalArgumentException("argument '" + text + "': filter '" + name
                    + "' is not point or bilinear");
        };
    }

    private static SamplerDescriptor.AddressMode mode(String text, String name) {
        return switch (name.trim().toLowerCase(Locale.ROOT)) {
            case "wrap", "repeat" -> SamplerDescriptor.AddressMode.WRAP;
            case "mirror" -> SamplerDescriptor.AddressMode.MIRROR;
            case "clamp", "clamp_last_texel" -> SamplerDescriptor.AddressMode.CLAMP_LAST_TEXEL;
            case "mirror_once", "mirror_once_last_texel" -> SamplerDescriptor.AddressMode.MIRROR_ONCE_LAST_TEXEL;
            case "clamp_half_border" -> SamplerDescriptor.AddressMode.CLAMP_HALF_BORDER;
            case "mirror_once_half_border" -> SamplerDescriptor.AddressMode.MIRROR_ONCE_HALF_BORDER;
            case "border", "clamp_border" -> SamplerDescriptor.AddressMode.CLAMP_BORDER;
            case "mirror_once_border" -> SamplerDescriptor.AddressMode.MIRROR_ONCE_BORDER;
            default -> throw new IllegalArgumentException("argument '" + text + "': address mode '" + name
                    + "' is not one of wrap, mirror, clamp, mirror_once, clamp_half_border, mirror_once_half_border, "
                    + "border, mirror_once_border");
        };
    }
}
