package org.replayfarm.evalnode.hostmodel;

/**
 * One atomic a lane performed: the operation (named as in the mnemonic, e.g. {@code add}, {@code umax},
 * {@code cmpswap}), where, its width in bytes, its operand (and comparand for compare-and-swap), and
 * the value it returned inside the group. The merge combines contributions across groups.
 */
public record AtomicContribution(int range, long offset, String op, int bytes, long operand, long comparand,
                                 long returned) {
}
