package org.replayfarm.evalnode.hostmodel;

/**
 * One image atomic a lane performed on a texel: image {@code image} (its index in the capture), the texel's
 * linear index in the capture's texel layout, the operation (named as in the mnemonic after
 * {@code image_atomic_}, e.g. {@code add}, {@code umax}, {@code cmpswap}), the texel's width in bytes (4 or
 * 8), the operand (and comparand for compare-and-swap), and the value it returned inside the group. Like
 * {@link AtomicContribution} for buffers: the merge combines contributions across groups after the stores.
 */
public record TexelAtomic(int image, long texel, String op, int bytes, long operand, long comparand, long returned) {
}
