package org.replayfarm.model.capture;

import java.nio.ByteBuffer;
import org.replayfarm.proto.BlobRef;

/** Resolves a metadata blob reference to its bytes (a read-only, little-endian view). */
public interface BlobSource {
    /**
     * @param field the metadata path of the reference, named in the error if it does not resolve
     */
    ByteBuffer blob(BlobRef ref, String field) throws CaptureFormatException;
}
