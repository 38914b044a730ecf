package org.replayfarm.evalnode.hostmodel.memory;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.replayfarm.evalnode.hostmodel.AtomicContribution;
import org.replayfarm.evalnode.hostmodel.InitialMemory;
import org.replayfarm.evalnode.hostmodel.StoreRun;
import org.replayfarm.evalnode.hostmodel.StoreTracer;
import org.replayfarm.evalnode.hostmodel.TexelAtomic;
import org.replayfarm.evalnode.hostmodel.TexelStore;
import org.replayfarm.evalnode.hostmodel.wave.GuestFault;

/**
 * Guest memory as one group sees it: the capture's initial bytes with the group's own stores and
 * atomics over them (another group's writes are never seen: groups are independent). Plain stores are
 * recorded as stores; bytes an atomic changed are recorded as the atomic's contribution instead. An
 * access outside every range is a fault naming the address.
 *
 * <p>The merge applies every group's atomic contributions after every group's stores, so a group that
 * mixes the two on the same bytes would be merged wrongly (store X then add 1 would merge as initial + 1;
 * add 1 then store X as X + 1). Where they meet in one group, the atomics become stores of the value the
 * group sees: an atomic on bytes the group stored is a store of its result, and a store over bytes an
 * earlier atomic of the group changed first turns those atomics into stores. Mixing stores and atomics
 * on one location across groups is a race; it shows as a store conflict or as the later atomics applied
 * over the stored value.
 */
public final class GroupMemory {
    private record TexelKey(int image, long texel) implements Comparable<TexelKey> {
        @Override
        public int compareTo(TexelKey o) {
            return image != o.image ? Integer.compare(image, o.image) : Long.compare(texel, o.texel);
        }
    }

    /** Texels the group stored: their final stored value (ordered when {@link #texelStores} lists them). */
    private final Map<TexelKey, byte[]> texels = new HashMap<>();
    /** Texels the group stored or changed atomically: the value the group sees now. */
    private final Map<TexelKey, byte[]> ownTexels = new HashMap<>();
    /** Image atomics per texel, in program order. */
    private final TreeMap<TexelKey, List<TexelAtomic>> texelAtomics = new TreeMap<>();

    private static final int PAGE = 4096; // page numbers are address >>> 12
    /** A page's bytes as little-endian ints and longs at any offset. */
    private static final java.lang.invoke.VarHandle INT_LE = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
            int[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final java.lang.invoke.VarHandle LONG_LE = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
            long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    private final InitialMemory initial;
    private final Map<Long, Page> pages = new HashMap<>();
    /**
     * The ranges the last two accesses found, most recent first (accesses cluster, and a loop that reads
     * one buffer and writes another alternates between two ranges).
     */
    private InitialMemory.Range lastRange;
    private InitialMemory.Range otherRange;
    private static final int SLOTS = 64;
    /** A direct-mapped cache of pages by page number (slot = number mod 64); a null slot holds nothing. */
    private final long[] cachedKeys = new long[SLOTS];
    private final Page[] cachedPages = new Page[SLOTS];

    /** The cache's mark for "no such page" (never written). */
    private static final Page ABSENT = new Page();

    private Page page(long key) {
        if (pages.isEmpty()) {
            return null; // nothing written yet (most groups only read guest memory): no lookup at all
        }
        int slot = (int) key & (SLOTS - 1);
        Page p = cachedPages[slot];
        if (p != null && cachedKeys[slot] == key) {
            return p == ABSENT ? null : p;
        }
        p = pages.get(key);
        cachedKeys[slot] = key;
        cachedPages[slot] = p == null ? ABSENT : p;
        return p;
    }

    private Page pageForWrite(long key) {
        Page p = page(key);
        if (p == null) {
            p = new Page();
            pages.put(key, p);
            cachedKeys[(int) key & (SLOTS - 1)] = key; // replaces the slot's ABSENT mark for this key
            cachedPages[(int) key & (SLOTS - 1)] = p;
        }
        return p;
    }

    private final List<AtomicContribution> atomics = new ArrayList<>();

    private static final class Page {
        final byte[] data = new byte[PAGE];
        /** The bytes the group wrote (stored or changed atomically). */
        final Bits present = new Bits();
        /** The bytes the group stored. */
        final Bits stored = new Bits();
    }

    /**
     * One bit per byte of a page, in words of 64 (the operations of {@link java.util.BitSet} the page uses, with
     * an access of up to 8 bytes at a multiple of its size answered from one word).
     */
    private static final class Bits {
        final long[] words = new long[PAGE / 64];

        boolean get(int i) {
            return (words[i >>> 6] & 1L << i) != 0;
        }

        void set(int i) {
            words[i >>> 6] |= 1L << i;
        }

        void clear(int i) {
            words[i >>> 6] &= ~(1L << i);
        }

        /** Sets [from, to). */
        void set(int from, int to) {
            if ((from & 63) + (to - from) <= 64) {
                words[from >>> 6] |= mask(from, to - from);
                return;
            }
            for (int i = from; i < to; i++) {
                set(i);
            }
        }

        /** The bits of [at, at + n) that lie in one word ({@code (at & 63) + n <= 64}, n >= 1), in place. */
        static long mask(int at, int n) {
            return (n == 64 ? -1L : (1L << n) - 1) << at;
        }

        int nextSetBit(int from) {
            for (int w = from >>> 6; w < words.length; w++) {
                long word = w == from >>> 6 ? words[w] & -1L << from : words[w];
                if (word != 0) {
                    return (w << 6) + Long.numberOfTrailingZeros(word);
                }
            }
            return -1;
        }

        int nextClearBit(int from) {
            for (int w = from >>> 6; w < words.length; w++) {
                long word = ~words[w] & (w == from >>> 6 ? -1L << from : -1L);
                if (word != 0) {
                    return (w << 6) + Long.numberOfTrailingZeros(word);
                }
            }
            return PAGE;
        }
    }

    private StoreTracer tracer;
    private int traceWave;
    private long tracePc;
    private org.replayfarm.model.isa.Instruction traceInstruction;

    public GroupMemory(InitialMemory initial) {
        this.initial = initial;
    }

    /** Sends every later write to {@code t} ({@link HostModel#runTraced}). */
    public void traceWith(StoreTracer t) {
        this.tracer = t;
    }

    public boolean tracing() {
        return tracer != null;
    }

    /** The wave and instruction the writes that follow come from (set before each instruction when tracing). */
    public void traceAt(int wave, long pc, org.replayfarm.model.isa.Instruction instruction) {
        traceWave = wave;
        tracePc = pc;
        traceInstruction = instruction;
    }

    private void trace(int lane, String kind, int range, long offset, int image, long texel, byte[] value) {
        tracer.written(new StoreTracer.Event(traceWave, lane, tracePc, traceInstruction, kind, range, offset, image, texel,
                value.clone()));
    }

    private static byte[] littleEndian(long value, int bytes) {
        byte[] b = new byte[bytes];
        for (int i = 0; i < bytes; i++) {
            b[i] = (byte) (value >>> (8 * i));
        }
        return b;
    }

    public InitialMemory initial() {
        return initial;
    }

    /** The range that holds [address, address + bytes), or a fault naming the access. */
    public InitialMemory.Range range(long address, int bytes, int lane) {
        InitialMemory.Range last = lastRange;
        if (last != null && last.contains(address, bytes)) {
            return last;
        }
        InitialMemory.Range other = otherRange;
        if (other != null && other.contains(address, bytes)) {
            otherRange = last;
            lastRange = other;
            return other;
        }
        InitialMemory.Range r = initial.find(address, bytes);
        if (r != null) {
            otherRange = last;
            lastRange = r;
        }
        if (r == null) {
            throw new GuestFault(String.format("access of %d byte(s) at 0x%x is outside every memory range", bytes,
                    address), lane);
        }
        return r;
    }

    /** Reads {@code bytes} (1..8) little-endian bytes. */
    public long load(long address, int bytes, int lane) {
        InitialMemory.Range r = range(address, bytes, lane);
        long value = 0;
        int at = (int) (address & (PAGE - 1));
        if (at + bytes <= PAGE) {
            // one page: look it up once (the common case)
            Page p = page(address >>> 12);
            int base = (int) (address - r.address());
            boolean none;
            boolean all;
            if (p == null) {
                none = true;
                all = false;
            } else if ((at & 63) + bytes <= 64) {
                // the access's bits in one word (any access at a multiple of its size)
                long m = Bits.mask(at, bytes);
                long w = p.present.words[at >>> 6] & m;
                none = w == 0;
                all = w == m;
            } else {
                int written = p.present.nextSetBit(at);
                none = written < 0 || written - at >= bytes;
                all = !none && p.present.nextClearBit(at) - at >= bytes;
            }
            if (none) {
                // none of the bytes written by the group: the initial bytes (little-endian buffers)
                java.nio.ByteBuffer b = r.initial();
                return switch (bytes) {
                    case 4 -> Integer.toUnsignedLong(b.getInt(base));
                    case 8 -> b.getLong(base);
                    case 2 -> Short.toUnsignedLong(b.getShort(base));
                    case 1 -> Byte.toUnsignedLong(b.get(base));
                    default -> initialBytes(b, base, bytes);
                };
            }
            if (all) {
                // all of them written by the group
                if (bytes == 4) {
                    return Integer.toUnsignedLong((int) INT_LE.get(p.data, at));
                }
                if (bytes == 8) {
                    return (long) LONG_LE.get(p.data, at);
                }
                for (int i = 0; i < bytes; i++) {
                    value |= (long) (p.data[at + i] & 0xFF) << (8 * i);
                }
                return value;
            }
            for (int i = 0; i < bytes; i++) {
                byte b = p != null && p.present.get(at + i) ? p.data[at + i] : r.initial().get(base + i);
                value |= (long) (b & 0xFF) << (8 * i);
            }
            return value;
        }
        for (int i = 0; i < bytes; i++) {
            value |= (long) (byteAt(r, address + i) & 0xFF) << (8 * i);
        }
        return value;
    }

    /**
     * Reads {@code count} consecutive little-endian dwords at {@code address} into {@code out} when one memory
     * range holds all of them, and answers whether it did; nothing is read (and no fault raised) when none does,
     * so the caller reads dword by dword through {@link #load} and faults where that faults. The same values as
     * {@code count} loads of 4 bytes: the initial bytes, or the group's own where it wrote any.
     */
    public boolean loadDwords(long address, int count, int[] out, int lane) {
        long bytes = 4L * count;
        InitialMemory.Range r = lastRange;
        if (r == null || !r.contains(address, bytes)) {
            r = otherRange != null && otherRange.contains(address, bytes) ? otherRange : initial.find(address, bytes);
            if (r == null) {
                return false;
            }
            otherRange = lastRange;
            lastRange = r;
        }
        if (!pages.isEmpty()) {
            // the group has written somewhere: each dword as load() reads it (its own bytes over the initial ones)
            for (int k = 0; k < count; k++) {
                out[k] = (int) load(address + 4L * k, 4, lane);
            }
            return true;
        }
        java.nio.ByteBuffer b = r.initial();
        int base = (int) (address - r.address());
        for (int k = 0; k < count; k++) {
            out[k] = b.getInt(base + 4 * k);
        }
        return true;
    }

    private static long initialBytes(java.nio.ByteBuffer b, int base, int bytes) {
        long value = 0;
        for (int i = 0; i < bytes; i++) {
            value |= (long) (b.get(base + i) & 0xFF) << (8 * i);
        }
        return value;
    }

    /** Writes {@code bytes} (1..8) little-endian bytes as a plain store. */
    public void store(long address, long value, int bytes, int lane) {
        InitialMemory.Range r = range(address, bytes, lane);
        if (tracer != null) {
            trace(lane, "store", r.index(), address - r.address(), -1, -1, littleEndian(value, bytes));
        }
        if (!atomics.isEmpty() && touchedByAtomic(address, bytes)) {
            materializeAtomics(address, bytes);
        }
        int at = (int) (address & (PAGE - 1));
        if (at + bytes <= PAGE) {
            Page p = pageForWrite(address >>> 12);
            if (bytes == 4) {
                INT_LE.set(p.data, at, (int) value);
            } else if (bytes == 8) {
                LONG_LE.set(p.data, at, value);
            } else {
                for (int i = 0; i < bytes; i++) {
                    p.data[at + i] = (byte) (value >>> (8 * i));
                }
            }
            p.present.set(at, at + bytes);
            p.stored.set(at, at + bytes);
            return;
        }
        for (int i = 0; i < bytes; i++) {
            put(address + i, (byte) (value >>> (8 * i)), true);
        }
    }

    /**
     * Performs the write of an atomic (the group sees the new value) and records its contribution; the
     * bytes count as atomic, not as stored.
     */
    public void atomic(long address, long newValue, int bytes, int lane, String op, long operand, long comparand,
                       long returned) {
        InitialMemory.Range r = range(address, bytes, lane);
        if (tracer != null) {
            trace(lane, "atomic " + op, r.index(), address - r.address(), -1, -1, littleEndian(newValue, bytes));
        }
        boolean overStore = storedAny(address, bytes);
        for (int i = 0; i < bytes; i++) {
            put(address + i, (byte) (newValue >>> (8 * i)), overStore);
        }
        if (!overStore) {
            atomics.add(new AtomicContribution(r.index(), address - r.address(), op, bytes, operand, comparand, returned));
        }
    }

    private boolean storedAny(long address, int bytes) {
        for (int i = 0; i < bytes; i++) {
            Page p = page(Long.divideUnsigned(address + i, PAGE));
            if (p != null && p.stored.get((int) Long.remainderUnsigned(address + i, PAGE))) {
                return true;
            }
        }
        return false;
    }

    /** Whether an atomic of this group changed any of the bytes (present but not stored). */
    private boolean touchedByAtomic(long address, int bytes) {
        for (int i = 0; i < bytes; i++) {
            Page p = page(Long.divideUnsigned(address + i, PAGE));
            int at = (int) Long.remainderUnsigned(address + i, PAGE);
            if (p != null && p.present.get(at) && !p.stored.get(at)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Turns this group's atomics that overlap [address, address + bytes) into stores of what the group
     * sees, and then any other of its atomics that overlap bytes so turned (an 8-byte atomic over a
     * 4-byte one), until none overlaps a stored byte.
     */
    private void materializeAtomics(long address, int bytes) {
        boolean changed = true;
        boolean first = true;
        while (changed) {
            changed = false;
            for (var it = atomics.iterator(); it.hasNext(); ) {
                AtomicContribution a = it.next();
                long at = initial.ranges().get(a.range()).address() + a.offset();
                boolean overlaps = first
                        ? Long.compareUnsigned(at, address + bytes) < 0 && Long.compareUnsigned(address, at + a.bytes()) < 0
                        : storedAny(at, a.bytes());
                if (overlaps) {
                    it.remove();
                    changed = true;
                    for (int i = 0; i < a.bytes(); i++) {
                        Page p = page(Long.divideUnsigned(at + i, PAGE));
                        p.stored.set((int) Long.remainderUnsigned(at + i, PAGE));
                    }
                }
            }
            first = false;
        }
    }

    private byte byteAt(InitialMemory.Range r, long address) {
        Page p = page(Long.divideUnsigned(address, PAGE));
        int at = (int) Long.remainderUnsigned(address, PAGE);
        if (p != null && p.present.get(at)) {
            return p.data[at];
        }
        return r.initial().get((int) (address - r.address()));
    }

    private void put(long address, byte value, boolean store) {
        Page p = pageForWrite(Long.divideUnsigned(address, PAGE));
        int at = (int) Long.remainderUnsigned(address, PAGE);
        p.data[at] = value;
        p.present.set(at);
        if (store) {
            p.stored.set(at);
        } else {
            p.stored.clear(at);
        }
    }

    /** The stored bytes, as runs of consecutive bytes per range, in address order. */
    public List<StoreRun> stores() {
        TreeMap<Long, Page> ordered = new TreeMap<>(Long::compareUnsigned);
        ordered.putAll(pages);
        List<StoreRun> runs = new ArrayList<>();
        InitialMemory.Range current = null;
        long runStart = 0;
        ByteArrayOutputStream run = new ByteArrayOutputStream();
        long expected = -1;
        for (var e : ordered.entrySet()) {
            Page p = e.getValue();
            for (int i = p.stored.nextSetBit(0); i >= 0; i = p.stored.nextSetBit(i + 1)) {
                long address = e.getKey() * PAGE + i;
                InitialMemory.Range r = initial.find(address, 1);
                if (run.size() > 0 && (address != expected || r != current)) {
                    runs.add(new StoreRun(current.index(), runStart - current.address(), run.toByteArray()));
                    run.reset();
                }
                if (run.size() == 0) {
                    current = r;
                    runStart = address;
                }
                run.write(p.data[i]);
                expected = address + 1;
            }
        }
        if (run.size() > 0) {
            runs.add(new StoreRun(current.index(), runStart - current.address(), run.toByteArray()));
        }
        return runs;
    }

    /**
     * Records a texel store: the texel's final value in this group is {@code value} (bytes per texel of
     * image {@code image}'s format, storage order). A later store to the same texel replaces it, and
     * replaces the group's earlier atomics on the texel (the store comes after them in the group).
     */
    public void storeTexel(int image, long texel, byte[] value) {
        storeTexel(image, texel, value, -1);
    }

    /** As above, by {@code lane} (named when tracing). */
    public void storeTexel(int image, long texel, byte[] value, int lane) {
        if (tracer != null) {
            trace(lane, "texel store", -1, -1, image, texel, value);
        }
        TexelKey key = new TexelKey(image, texel);
        byte[] copy = value.clone(); // both maps hold it; neither changes a value in place
        texels.put(key, copy);
        ownTexels.put(key, copy);
        if (!texelAtomics.isEmpty()) {
            texelAtomics.remove(key);
        }
    }

    /**
     * Performs the write of an image atomic (the group sees {@code newValue}) and records its contribution;
     * the texel counts as changed atomically, not as stored (a store the group made before stays a store,
     * and the merge applies the atomics after every store).
     */
    public void atomicTexel(int image, long texel, byte[] newValue, String op, long operand, long comparand,
                            long returned) {
        atomicTexel(image, texel, newValue, op, operand, comparand, returned, -1);
    }

    /** As above, by {@code lane} (named when tracing). */
    public void atomicTexel(int image, long texel, byte[] newValue, String op, long operand, long comparand,
                            long returned, int lane) {
        if (tracer != null) {
            trace(lane, "texel atomic " + op, -1, -1, image, texel, newValue);
        }
        TexelKey key = new TexelKey(image, texel);
        ownTexels.put(key, newValue.clone());
        texelAtomics.computeIfAbsent(key, k -> new ArrayList<>())
                .add(new TexelAtomic(image, texel, op, newValue.length, operand, comparand, returned));
    }

    /** Whether this group stored or changed any texel atomically yet (when not, every texel reads as captured). */
    public boolean hasOwnTexels() {
        return !ownTexels.isEmpty();
    }

    /** This group's own value of a texel it stored or changed atomically, or null when it did neither. */
    public byte[] ownTexel(int image, long texel) {
        return ownTexels.get(new TexelKey(image, texel));
    }

    /** The texels stored, ordered by image then texel. */
    public List<TexelStore> texelStores() {
        List<TexelKey> keys = new ArrayList<>(texels.keySet());
        keys.sort(null); // stored in a hash map (a store is one put), ordered once here
        List<TexelStore> list = new ArrayList<>(keys.size());
        for (TexelKey k : keys) {
            list.add(new TexelStore(k.image(), k.texel(), texels.get(k)));
        }
        return list;
    }

    /** The image atomics, ordered by image then texel, each texel's in program order. */
    public List<TexelAtomic> texelAtomics() {
        List<TexelAtomic> list = new ArrayList<>();
        texelAtomics.values().forEach(list::addAll);
        return list;
    }

    public List<AtomicContribution> atomics() {
        return List.copyOf(atomics);
    }
}
