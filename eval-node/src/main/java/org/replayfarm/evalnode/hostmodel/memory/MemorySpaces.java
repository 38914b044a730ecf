package org.replayfarm.evalnode.hostmodel.memory;

import java.nio.ByteBuffer;
import org.replayfarm.evalnode.hostmodel.wave.Workgroup;

/**
 * The places a vector memory access of one lane can land: guest memory (the group's {@link GroupMemory}),
 * the group's LDS, a lane's swizzled private memory, and the scratch backing store by guest address.
 * Each space moves little-endian bytes and performs atomics (returning the value before the atomic).
 */
final class MemorySpaces {
    private MemorySpaces() {
    }

    /** One address space as a lane sees it. */
    interface Space {
        byte[] load(long address, int bytes, int lane);

        void store(long address, byte[] data, int lane);

        /** Performs atomic {@code op} ({@link MemoryOps#atomic}) and returns the value memory held before it. */
        long atomic(long address, String op, long data, long cmp, int bytes, int lane);
    }

    /** Guest memory: accesses outside every captured range fault; atomics are recorded as contributions. */
    static Space global(GroupMemory memory) {
        return new Space() {
            @Override
            public byte[] load(long address, int bytes, int lane) {
                byte[] out = new byte[bytes];
                for (int at = 0; at < bytes; at += 8) {
                    int n = Math.min(8, bytes - at);
                    MemoryOps.putLittleEndian(out, at, memory.load(address + at, n, lane), n);
                }
                return out;
            }

            @Override
            public void store(long address, byte[] data, int lane) {
                for (int at = 0; at < data.length; at += 8) {
                    int n = Math.min(8, data.length - at);
                    memory.store(address + at, MemoryOps.littleEndian(data, at, n), n, lane);
                }
            }

            @Override
            public long atomic(long address, String op, long data, long cmp, int bytes, int lane) {
                MemoryOps.checkAtomicAlignment(address, bytes, lane);
                long old = memory.load(address, bytes, lane);
                long value = MemoryOps.atomic(op, old, data, cmp, bytes);
                memory.atomic(address, value, bytes, lane, op, data, cmp, old);
                return old;
            }
        };
    }

    /**
     * The group's LDS by byte address (32 bits, unsigned). An access any byte of which lies at or past the
     * group's LDS allocation ({@link Kernel#ldsBytes()}) is out of range: a read returns 0, a write or
     * atomic changes nothing (an atomic returns 0). This is the RDNA 2 rule for LDS accesses beyond the
     * wave's LDS_SIZE; M0 plays no part in it on gfx10.
     */
    static Space lds(ByteBuffer lds) {
        return new Space() {
            private boolean inRange(long address, int bytes) {
                return address >= 0 && address + bytes <= lds.capacity();
            }

            @Override
            public byte[] load(long address, int bytes, int lane) {
                byte[] out = new byte[bytes];
                if (inRange(address, bytes)) {
                    for (int i = 0; i < bytes; i++) {
                        out[i] = lds.get((int) address + i);
                    }
                }
                return out;
            }

            @Override
            public void store(long address, byte[] data, int lane) {
                if (inRange(address, data.length)) {
                    for (int i = 0; i < data.length; i++) {
                        lds.put((int) address + i, data[i]);
                    }
                }
            }

            @Override
            public long atomic(long address, String op, long data, long cmp, int bytes, int lane) {
                MemoryOps.checkAtomicAlignment(address, bytes, lane);
                if (!inRange(address, bytes)) {
                    return 0;
                }
                long old = bytes == 8 ? lds.getLong((int) address) : Integer.toUnsignedLong(lds.getInt((int) address));
                long value = MemoryOps.atomic(op, old, data, cmp, bytes);
                if (bytes == 8) {
                    lds.putLong((int) address, value);
                } else {
                    lds.putInt((int) address, (int) value);
                }
                return old;
            }
        };
    }

    /**
     * The scratch backing store by guest address (from {@code GuestLayout.SCRATCH_BASE}); the address
     * already holds the lane interleave. An access outside the group's scratch faults.
     */
    static Space scratch(Workgroup g) {
        return new Space() {
            @Override
            public byte[] load(long address, int bytes, int lane) {
                byte[] out = new byte[bytes];
                for (int i = 0; i < bytes; i++) {
                    out[i] = g.scratch().get(MemoryOps.scratchIndex(g, address + i, lane));
                }
                return out;
            }

            @Override
            public void store(long address, byte[] data, int lane) {
                for (int i = 0; i < data.length; i++) {
                    MemoryOps.scratchIndex(g, address + i, lane);
                }
                for (int i = 0; i < data.length; i++) {
                    g.scratch().set(MemoryOps.scratchIndex(g, address + i, lane), data[i]);
                }
            }

            @Override
            public long atomic(long address, String op, long data, long cmp, int bytes, int lane) {
                MemoryOps.checkAtomicAlignment(address, bytes, lane);
                long old = MemoryOps.littleEndian(load(address, bytes, lane), 0, bytes);
                byte[] out = new byte[bytes];
                MemoryOps.putLittleEndian(out, 0, MemoryOps.atomic(op, old, data, cmp, bytes), bytes);
                store(address, out, lane);
                return old;
            }
        };
    }

    /**
     * Lane {@code lane}'s private memory by private byte offset (32 bits, wrapping), laid out by
     * {@link MemoryOps#privateAddress} from the wave's private base {@code waveBase} (FLAT_SCRATCH).
     */
    static Space privateMemory(Workgroup g, long waveBase, int waveSize) {
        Space backing = scratch(g);
        return new Space() {
            private long at(long offset, int i, int lane) {
                return MemoryOps.privateAddress(waveBase, (offset + i) & 0xFFFF_FFFFL, lane, waveSize);
            }

            @Override
            public byte[] load(long offset, int bytes, int lane) {
                byte[] out = new byte[bytes];
                for (int i = 0; i < bytes; i++) {
                    out[i] = backing.load(at(offset, i, lane), 1, lane)[0];
                }
                return out;
            }

            @Override
            public void store(long offset, byte[] data, int lane) {
                for (int i = 0; i < data.length; i++) {
                    backing.store(at(offset, i, lane), new byte[] {data[i]}, lane);
                }
            }

            @Override
            public long atomic(long offset, String op, long data, long cmp, int bytes, int lane) {
                MemoryOps.checkAtomicAlignment(offset, bytes, lane);
                // an aligned 4- or 8-byte private datum: dword-interleaved, so an 8-byte one spans two dwords
                long old = MemoryOps.littleEndian(load(offset, bytes, lane), 0, bytes);
                byte[] out = new byte[bytes];
                MemoryOps.putLittleEndian(out, 0, MemoryOps.atomic(op, old, data, cmp, bytes), bytes);
                store(offset, out, lane);
                return old;
            }
        };
    }
}
