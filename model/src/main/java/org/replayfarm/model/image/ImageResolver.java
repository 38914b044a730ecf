package org.replayfarm.model.image;

import java.util.ArrayList;
import java.util.List;
import org.replayfarm.proto.Image;

/**
 * Which captured image a T# names: the image at the descriptor's base address; when no captured image
 * lies there (a capture taken where addresses were not kept, seed 001), the one image whose extent
 * (width, height, depth), layer count and format (data and numeric) equal the descriptor's. No match, or
 * several, is an error that lists the candidates. The order the program loads descriptors in is never
 * used (seed 001, rejected: the binding's order is the translation's).
 */
public final class ImageResolver {
    private final List<Image> images;

    public ImageResolver(List<Image> images) {
        this.images = List.copyOf(images);
    }

    /** The index of the image the descriptor names, or an {@link IllegalArgumentException} saying why none. */
    public int resolve(ImageDescriptor d) {
        for (Image im : images) {
            if (im.getGuestAddress() == d.baseAddress()) {
                return im.getIndex();
            }
        }
        ImageFormat format;
        try {
            format = d.imageFormat();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(String.format("no captured image at 0x%x, and the T#'s %s", d.baseAddress(),
                    e.getMessage()));
        }
        List<Image> matches = new ArrayList<>();
        for (Image im : images) {
            if (im.getWidth() == d.width() && Math.max(1, im.getHeight()) == d.height()
                    && Math.max(1, im.getDepth()) == d.depth() && Math.max(1, im.getLayers()) == d.layers()
                    && im.getDataFormat() == format.data() && im.getNumericFormat() == format.numeric()) {
                matches.add(im);
            }
        }
        if (matches.size() == 1) {
            return matches.get(0).getIndex();
        }
        String wanted = String.format("%dx%dx%d, %d layer(s), %s", d.width(), d.height(), d.depth(), d.layers(), format);
        StringBuilder s = new StringBuilder(String.format("no captured image at 0x%x; by extent, layers and format (%s) ",
                d.baseAddress(), wanted));
        s.append(matches.isEmpty() ? "none matches" : matches.size() + " match, which is ambiguous");
        List<Image> listed = matches.isEmpty() ? images : matches;
        s.append(listed.isEmpty() ? "; the capture has no images" : "; candidates:");
        for (Image im : listed) {
            s.append(String.format(" [image %d '%s' at 0x%x: %dx%dx%d, %d layer(s), %s_%s]", im.getIndex(), im.getName(),
                    im.getGuestAddress(), im.getWidth(), im.getHeight(), im.getDepth(), im.getLayers(),
                    im.getDataFormat().name().substring(4), im.getNumericFormat().name().substring(4)));
        }
        throw new IllegalArgumentException(s.toString());
    }
}
