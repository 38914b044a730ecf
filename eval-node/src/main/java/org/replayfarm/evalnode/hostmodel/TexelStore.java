package org.replayfarm.evalnode.hostmodel;

/**
 * A texel a group stored: image {@code image} (its index in the capture), the texel's linear index in the
 * capture's texel layout ({@link org.replayfarm.model.capture.TexelLayout#texelIndex}), and its final
 * value as the image stores it (bytes per texel of the image's data format, little-endian, channels in
 * storage order).
 */
public record TexelStore(int image, long texel, byte[] value) {
}
