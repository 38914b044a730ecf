package org.replayfarm.evalnode.hostmodel;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.capture.TexelLayout;
import org.replayfarm.proto.Image;

/** The capture's images as every group first sees them: read-only, shared by all groups. */
public final class InitialImages {
    /** One image: its metadata and initial texels (a read-only mapped view, capture layout). */
    public record Entry(int index, Image image, ByteBuffer texels) {
        public int bytesPerTexel() {
            return TexelLayout.bytesPerTexel(image.getDataFormat());
        }

        public long texelCount() {
            return TexelLayout.totalTexels(image);
        }
    }

    private final List<Entry> images;

    public InitialImages(List<Entry> images) {
        this.images = List.copyOf(images);
    }

    public static InitialImages of(CaptureFile capture) {
        List<Entry> list = new ArrayList<>();
        for (Image i : capture.metadata().getImagesList()) {
            list.add(new Entry(i.getIndex(), i, capture.blob(i.getTexels()).order(ByteOrder.LITTLE_ENDIAN)));
        }
        return new InitialImages(list);
    }

    public List<Entry> images() {
        return images;
    }

    public Entry get(int index) {
        return images.get(index);
    }

    public int size() {
        return images.size();
    }
}
