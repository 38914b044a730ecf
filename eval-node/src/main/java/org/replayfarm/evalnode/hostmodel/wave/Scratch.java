package org.replayfarm.evalnode.hostmodel.wave;

/**
 * A group's scratch (private) memory, zero until written, in pages of {@value #PAGE_BYTES} bytes made on the first
 * non-zero write. A gfx1030 wave may have up to 8,387,584 bytes of scratch, so a group of 32 waves up to 256 MiB:
 * held as one array per group, a capture declaring that much (most kernels touch a little of it) ran the host model
 * out of heap on two threads; paged, a group holds what it wrote.
 */
public final class Scratch {
    static final int PAGE_BITS = 16;
    public static final int PAGE_BYTES = 1 << PAGE_BITS;
    private static final int PAGE_MASK = PAGE_BYTES - 1;

    private final int length;
    private final byte[][] pages;
    private int made;

    public Scratch(int length) {
        if (length < 0) {
            throw new IllegalArgumentException("scratch of " + length + " bytes");
        }
        this.length = length;
        this.pages = new byte[(int) ((length + (long) PAGE_MASK) >>> PAGE_BITS)][];
    }

    /** Bytes of scratch the group has (its declared size, written or not). */
    public int length() {
        return length;
    }

    /** The byte at {@code at} (0 &lt;= at &lt; length; the callers check the bounds and fault). */
    public byte get(int at) {
        byte[] page = pages[at >>> PAGE_BITS];
        return page == null ? 0 : page[at & PAGE_MASK];
    }

    public void set(int at, byte value) {
        int p = at >>> PAGE_BITS;
        byte[] page = pages[p];
        if (page == null) {
            if (value == 0) {
                return; // a zero written where nothing was written reads back the same
            }
            page = new byte[PAGE_BYTES];
            pages[p] = page;
            made++;
        }
        page[at & PAGE_MASK] = value;
    }

    /** The little-endian dword at {@code at}. */
    public int dword(int at) {
        return (get(at) & 0xFF) | (get(at + 1) & 0xFF) << 8 | (get(at + 2) & 0xFF) << 16 | (get(at + 3) & 0xFF) << 24;
    }

    /** Pages made so far: the bytes the group holds are this times {@link #PAGE_BYTES}. */
    public int pagesMade() {
        return made;
    }
}
