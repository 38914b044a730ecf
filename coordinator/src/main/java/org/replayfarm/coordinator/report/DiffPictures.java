package org.replayfarm.coordinator.report;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageTypeSpecifier;
import javax.imageio.ImageWriter;
import javax.imageio.metadata.IIOMetadata;
import javax.imageio.metadata.IIOMetadataNode;
import javax.imageio.stream.ImageOutputStream;
import org.replayfarm.coordinator.report.DiffResult.ImageDiff;
import org.replayfarm.coordinator.report.DiffResult.RangeDiff;
import org.replayfarm.coordinator.report.DiffResult.TexelRegion;
import org.replayfarm.evalnode.eval.Evaluation;
import org.replayfarm.evalnode.eval.OutputFolder;
import org.replayfarm.model.image.ImageFormat;
import org.replayfarm.model.image.TexelCodec;
import org.replayfarm.proto.Image;
import org.replayfarm.proto.ImageType;
import org.replayfarm.proto.NumericFormat;

/**
 * The pictures that make a difference visible beyond {@link DiffPicture}: a heat map of each 2-D typed range
 * ({@code diff/range-<n>-heatmap.png}), enlarged crops of each image's first regions
 * ({@code diff/image-<k>-region-<r>.png}), and float images normalised instead of clamped (host, device and
 * diff pictures of a {@code NUM_FLOAT} image share one linear map per channel from the host's finite values'
 * minimum and maximum to [0, 1]). Every PNG written here says how it was made in a {@code tEXt} chunk
 * ({@code Description}, and {@code Normalisation} for floats).
 */
public final class DiffPictures {
    /** Regions per image that get an enlarged crop. */
    public static final int CROPS = 8;
    /** Texels of context around a region in its crop. */
    static final int MARGIN = 4;
    /** A crop is enlarged until its longer side is at least this many pixels (by a whole factor, at most 32). */
    static final int CROP_SIDE = 160;

    private DiffPictures() {
    }

    public static String heatMapName(int range) {
        return "diff/range-" + range + "-heatmap.png";
    }

    public static String cropName(int image, int region) {
        return "diff/image-" + image + "-region-" + region + ".png";
    }

    /** Writes the heat maps, crops and normalised float pictures for a compared run. */
    static void write(Path dir, Evaluation.Outcome o, DiffResult diff) throws IOException {
        if (diff == null) {
            return;
        }
        Path out = Files.createDirectories(dir.resolve("diff"));
        for (RangeDiff d : diff.ranges()) {
            if (d.recorded() && d.view().shaped() && d.distance() != null) {
                OutputFolder.write(dir.resolve(heatMapName(d.index())), heatMap(d));
            }
        }
        for (ImageDiff d : diff.images()) {
            if (!d.recorded()) {
                continue;
            }
            Image image = o.images().initial().get(d.index()).image();
            byte[] host = o.images().texels(d.index());
            BufferedImage background = null;
            if (image.getNumericFormat() == NumericFormat.NUM_FLOAT) {
                Path devicePng = dir.resolve("device/image-" + d.index() + ".png");
                byte[] device = Files.exists(dir.resolve("device/image-" + d.index() + ".raw"))
                        ? Files.readAllBytes(dir.resolve("device/image-" + d.index() + ".raw")) : null;
                Normalised n = Normalised.of(image, host, device);
                background = n.picture(image, host);
                OutputFolder.write(dir.resolve("host/image-" + d.index() + ".png"), png(background, n.text("host")));
                if (device != null) {
                    OutputFolder.write(devicePng, png(n.picture(image, device), n.text("device")));
                }
                OutputFolder.write(out.resolve("image-" + d.index() + ".png"), png(DiffPicture.draw(background,
                        d.differingTexels(), d.deviceOnlyTexels()), Map.of("Description", DIFF_TEXT, "Normalisation",
                        n.describe())));
            }
            BufferedImage drawn = null; // drawn for the first crop: an image without regions needs none
            for (int r = 0; r < Math.min(CROPS, d.regions().size()); r++) {
                TexelRegion region = d.regions().get(r);
                if (region.mip() != 0) {
                    continue; // the pictures show level 0
                }
                if (drawn == null) {
                    drawn = background == null
                            ? DiffPicture.draw(image, host, d.differingTexels(), d.deviceOnlyTexels())
                            : DiffPicture.draw(background, d.differingTexels(), d.deviceOnlyTexels());
                }
                OutputFolder.write(dir.resolve(cropName(d.index(), r)), crop(image, drawn, region));
            }
        }
    }

    static final String DIFF_TEXT = "host picture dimmed to a third; differing texels #FF2020, device-only #FFFF00";

    /** The region's box with {@link #MARGIN} texels around it, enlarged by a whole factor. */
    static byte[] crop(Image image, BufferedImage drawn, TexelRegion r) {
        int h = Math.max(1, image.getHeight());
        int plane = r.layer() * Math.max(1, image.getType() == ImageType.IMAGE_3D ? image.getDepth() : 1) + r.z();
        int x0 = Math.max(0, r.x0() - MARGIN);
        int x1 = Math.min(image.getWidth() - 1, r.x1() + MARGIN);
        int y0 = Math.max(0, r.y0() - MARGIN);
        int y1 = Math.min(h - 1, r.y1() + MARGIN);
        int w = x1 - x0 + 1;
        int ch = y1 - y0 + 1;
        int scale = Math.max(1, Math.min(32, (CROP_SIDE + Math.max(w, ch) - 1) / Math.max(w, ch)));
        BufferedImage out = new BufferedImage(w * scale, ch * scale, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < ch * scale; y++) {
            for (int x = 0; x < w * scale; x++) {
                out.setRGB(x, y, drawn.getRGB(x0 + x / scale, plane * h + y0 + y / scale));
            }
        }
        return png(out, Map.of("Description", String.format("region at x %d..%d, y %d..%d (layer %d, z %d) of image %d, "
                + "with %d texel(s) of context, enlarged %dx; %s", r.x0(), r.x1(), r.y0(), r.y1(), r.layer(), r.z(), r.image(),
                MARGIN, scale, DIFF_TEXT)));
    }

    /**
     * One block of pixels per element, row-major as the view's shape: dark grey not compared, black equal, yellow
     * to red the distance in ulps on a log2 scale (1 ulp yellow, 2^20 or more red), magenta a NaN or infinity
     * against another value, an integer that differs, or a device-only change.
     */
    static byte[] heatMap(RangeDiff d) {
        int rows = d.view().rows();
        int cols = d.view().cols();
        int scale = Math.max(1, Math.min(16, 512 / Math.max(rows, cols)));
        BufferedImage out = new BufferedImage(cols * scale, rows * scale, BufferedImage.TYPE_INT_RGB);
        double[] dist = d.distance();
        boolean floating = d.view().type().floating();
        for (int e = 0; e < rows * cols; e++) {
            double v = dist[e];
            int rgb;
            if (Double.isNaN(v)) {
                rgb = 0x404040;
            } else if (v == 0) {
                rgb = 0x000000;
            } else if (Double.isInfinite(v) || !floating) {
                rgb = 0xFF00FF;
            } else {
                double t = Math.min(1, Math.log(v) / Math.log(2) / 20);
                int g = (int) Math.round(255 * (1 - t));
                rgb = 0xFF << 16 | g << 8;
            }
            int r = e / cols;
            int c = e % cols;
            for (int y = 0; y < scale; y++) {
                for (int x = 0; x < scale; x++) {
                    out.setRGB(c * scale + x, r * scale + y, rgb);
                }
            }
        }
        return png(out, Map.of("Description", String.format("heat map of range %d (%s) as %s[%dx%d], %dx%d pixels an "
                + "element: dark grey not compared, black equal, yellow (1 ulp) to red (2^20 ulps or more) on a log2 scale, "
                + "magenta NaN or infinity against another value, a differing integer or a device-only change",
                d.index(), d.name(), d.view().type().spelling(), rows, cols, scale, scale)));
    }

    /** A per-channel linear map of a float image's finite values (host and device together) onto [0, 1]. */
    record Normalised(double[] min, double[] max) {
        static Normalised of(Image image, byte[] host, byte[] device) {
            ImageFormat f = new ImageFormat(image.getDataFormat(), image.getNumericFormat());
            int n = f.channels();
            double[] min = new double[n];
            double[] max = new double[n];
            java.util.Arrays.fill(min, Double.POSITIVE_INFINITY);
            java.util.Arrays.fill(max, Double.NEGATIVE_INFINITY);
            long texels = level0Texels(image);
            for (byte[] t : new byte[][] {host}) { // the host's range: a wild device value saturates instead of crushing the picture
                for (long i = 0; i < texels; i++) {
                    double[] v = values(f, t, (int) (i * f.bytesPerTexel()));
                    for (int c = 0; c < n; c++) {
                        if (Double.isFinite(v[c])) {
                            min[c] = Math.min(min[c], v[c]);
                            max[c] = Math.max(max[c], v[c]);
                        }
                    }
                }
            }
            return new Normalised(min, max);
        }

        String describe() {
            StringBuilder b = new StringBuilder("linear per channel over the host's finite values of level 0 (device values beyond them saturate): ");
            for (int c = 0; c < min.length; c++) {
                b.append(c > 0 ? "; " : "").append("channel ").append(c).append(' ');
                b.append(min[c] > max[c] ? "no finite value" : String.format("%s -> 0, %s -> 255", min[c], max[c]));
            }
            return b.append("; NaN and -infinity as 0, +infinity as 255").toString();
        }

        Map<String, String> text(String side) {
            Map<String, String> m = new LinkedHashMap<>();
            m.put("Description", side + " image, level 0, channels in storage order as red, green, blue (one as grey)");
            m.put("Normalisation", describe());
            return m;
        }

        BufferedImage picture(Image image, byte[] texels) {
            ImageFormat f = new ImageFormat(image.getDataFormat(), image.getNumericFormat());
            int w = image.getWidth();
            int rows = (int) (level0Texels(image) / w);
            int n = f.channels();
            BufferedImage out = new BufferedImage(w, rows, BufferedImage.TYPE_INT_RGB);
            for (int t = 0; t < w * rows; t++) {
                double[] v = values(f, texels, t * f.bytesPerTexel());
                int[] c8 = new int[3];
                for (int c = 0; c < Math.min(3, n); c++) {
                    double x = v[c];
                    double span = max[c] - min[c];
                    double u = Double.isNaN(x) ? 0 : x == Double.POSITIVE_INFINITY ? 1 : x == Double.NEGATIVE_INFINITY ? 0
                            : span > 0 ? (x - min[c]) / span : 0.5;
                    c8[c] = (int) Math.round(255 * Math.max(0, Math.min(1, u)));
                }
                int rgb = n == 1 ? c8[0] << 16 | c8[0] << 8 | c8[0] : c8[0] << 16 | c8[1] << 8 | c8[2];
                out.setRGB(t % w, t / w, rgb);
            }
            return out;
        }

        private static double[] values(ImageFormat f, byte[] texels, int at) {
            long[] raw = TexelCodec.unpack(f, texels, at);
            int[] bits = f.channelBits();
            double[] v = new double[raw.length];
            for (int c = 0; c < raw.length; c++) {
                v[c] = switch (bits[c]) {
                    case 32 -> Float.intBitsToFloat((int) raw[c]);
                    case 16 -> Float.intBitsToFloat(org.replayfarm.model.fp.Half.toFloatBits((int) raw[c]));
                    default -> TexelCodec.fromSmallFloat((int) raw[c], bits[c] - 5);
                };
            }
            return v;
        }
    }

    static long level0Texels(Image image) {
        return (long) image.getWidth() * Math.max(1, image.getHeight()) * Math.max(1, image.getLayers())
                * Math.max(1, image.getType() == ImageType.IMAGE_3D ? image.getDepth() : 1);
    }

    /** A picture as PNG bytes with {@code tEXt} entries (keyword, text). */
    static byte[] png(BufferedImage picture, Map<String, String> text) {
        try {
            ImageWriter writer = ImageIO.getImageWritersByFormatName("png").next();
            IIOMetadata meta = writer.getDefaultImageMetadata(ImageTypeSpecifier.createFromRenderedImage(picture), null);
            IIOMetadataNode root = new IIOMetadataNode("javax_imageio_png_1.0");
            IIOMetadataNode chunk = new IIOMetadataNode("tEXt");
            text.forEach((k, v) -> {
                IIOMetadataNode e = new IIOMetadataNode("tEXtEntry");
                e.setAttribute("keyword", k);
                e.setAttribute("value", v);
                chunk.appendChild(e);
            });
            root.appendChild(chunk);
            meta.mergeTree("javax_imageio_png_1.0", root);
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (ImageOutputStream s = ImageIO.createImageOutputStream(bytes)) {
                writer.setOutput(s);
                writer.write(new IIOImage(picture, null, meta));
            } finally {
                writer.dispose();
            }
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
