package org.replayfarm.model.capture;

import java.util.LinkedHashMap;
import java.util.Map;
import org.replayfarm.proto.BlobRef;
import org.replayfarm.proto.Capture;

/** Every blob reference in a capture's metadata, keyed by its metadata path, in metadata order. */
final class BlobRefs {
    private BlobRefs() {
    }

    static Map<String, BlobRef> all(Capture capture) {
        Map<String, BlobRef> refs = new LinkedHashMap<>();
        refs.put("program.code", capture.getProgram().getCode());
        for (int i = 0; i < capture.getRangesCount(); i++) {
            refs.put("ranges[" + i + "].initial", capture.getRanges(i).getInitial());
        }
        for (int i = 0; i < capture.getImagesCount(); i++) {
            refs.put("images[" + i + "].texels", capture.getImages(i).getTexels());
        }
        for (int r = 0; r < capture.getRunsCount(); r++) {
            var run = capture.getRuns(r);
            for (int i = 0; i < run.getRangesCount(); i++) {
                refs.put("runs[" + r + "].ranges[" + i + "].data", run.getRanges(i).getData());
            }
            for (int i = 0; i < run.getImagesCount(); i++) {
                refs.put("runs[" + r + "].images[" + i + "].texels", run.getImages(i).getTexels());
            }
        }
        return refs;
    }
}
