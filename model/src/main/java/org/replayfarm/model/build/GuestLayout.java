package org.replayfarm.model.build;

/**
 * Where the builder puts things in the guest address space. Ranges are laid out upward from
 * {@link #FIRST_RANGE}, each on a 64 KiB boundary with at least 64 KiB unmapped after it, so an access
 * that runs a little past a range falls outside every range instead of into its neighbour.
 */
public final class GuestLayout {
    public static final long FIRST_RANGE = 0x1_0000_0000L;
    public static final long RANGE_ALIGNMENT = 0x1_0000L;
    public static final long GUARD_GAP = 0x1_0000L;
    /**
     * Base of the scratch backing memory handed to the kernel (private segment buffer V# base and
     * FLAT_SCRATCH_INIT). Scratch is per lane and owned by the host model, not a captured range.
     */
    public static final long SCRATCH_BASE = 0x7F00_0000_0000L;

    private long next = FIRST_RANGE;

    /** Reserves {@code size} bytes and returns their guest address. */
    public long allocate(long size) {
        long address = next;
        long end = address + size + GUARD_GAP;
        next = (end + RANGE_ALIGNMENT - 1) / RANGE_ALIGNMENT * RANGE_ALIGNMENT;
        return address;
    }
}
