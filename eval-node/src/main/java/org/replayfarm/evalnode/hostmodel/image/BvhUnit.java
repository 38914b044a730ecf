package org.replayfarm.evalnode.hostmodel.image;

import org.replayfarm.evalnode.hostmodel.memory.GroupMemory;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.evalnode.hostmodel.wave.GuestFault;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.bvh.BvhDescriptor;
import org.replayfarm.model.bvh.NodeTest;
import org.replayfarm.model.bvh.NodeType;
import org.replayfarm.model.bvh.Ray;
import org.replayfarm.model.fp.Half;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.Instruction;

/**
 * The ray-intersection half of the image unit: image_bvh_intersect_ray and image_bvh64_intersect_ray
 * (RDNA 2 ISA, MIMG opcodes 230 and 231; reference §5.1), each lane testing one node through
 * {@link NodeTest} and writing the four result dwords to VDATA.
 *
 * <p>Address dwords (VADDR and the registers after it, or VADDR then the NSA bytes' registers): the node
 * pointer (one dword, two for bvh64), the ray extent, origin x, y, z, then direction x, y, z and inverse
 * direction x, y, z as float32, or with A16 three dwords of float16 pairs, low half first: {dir x, dir y},
 * {dir z, inv x}, {inv y, inv z}, widened exactly to float32. The resource is the 128-bit BVH descriptor in
 * the four SGPRs SRSRC names. Node reads go to guest memory (outside every range: a fault naming the lane).
 *
 * <p>Faults (what the hardware does is not documented, so the model does not guess): a node past the
 * descriptor's SIZE field (a 64-byte unit of the node above SIZE), and an encoding outside the ISA's
 * restrictions for these opcodes (D16, TFE, LWE set, or a DMASK other than 0xf), which llvm-mc-19 refuses
 * to assemble but raw code can hold.
 *
 * <p>Classified approximate: the node test is GPURT's emulation, not the hardware's circuit; the bound is
 * argued in {@link NodeTest}.
 */
public final class BvhUnit {
    private BvhUnit() {
    }

    public static void register(SemanticsTable.Builder b) {
        b.approximate(Encoding.MIMG, "image_bvh_intersect_ray", (w, insn) -> intersect(w, insn, false));
        b.approximate(Encoding.MIMG, "image_bvh64_intersect_ray", (w, insn) -> intersect(w, insn, true));
    }

    static void intersect(Wave w, Instruction insn, boolean wide) {
        Fields.Mimg m = (Fields.Mimg) insn.fields();
        int count = (wide ? 12 : 11) - (m.a16() ? 3 : 0);
        int[] address = new int[count];
        for (int i = 0; i < count; i++) {
            address[i] = ImageUnit.addressVgpr(m, i);
        }
        int s = m.srsrc(); // the decoder hands the first register (the field times 4)
        BvhDescriptor descriptor = BvhDescriptor.decode(w.sgpr(s), w.sgpr(s + 1), w.sgpr(s + 2), w.sgpr(s + 3));
        if (descriptor.type() != BvhDescriptor.TYPE_BVH) {
            throw new GuestFault(String.format("s[%d:%d] is not a BVH resource: its TYPE field [127:124] is %d, not %d "
                    + "(words 0x%08x 0x%08x 0x%08x 0x%08x)", s, s + 3, descriptor.type(), BvhDescriptor.TYPE_BVH,
                    w.sgpr(s), w.sgpr(s + 1), w.sgpr(s + 2), w.sgpr(s + 3)));
        }
        if (m.d16() || m.tfe() || m.lwe() || m.dmask() != 0xF) {
            throw new GuestFault(String.format("%s with D16 %d, TFE %d, LWE %d, DMASK 0x%x: the ISA restricts it to D16 0, "
                    + "TFE 0, LWE 0, DMASK 0xf; what the hardware does otherwise is not modelled", insn.mnemonic(),
                    m.d16() ? 1 : 0, m.tfe() ? 1 : 0, m.lwe() ? 1 : 0, m.dmask()));
        }
        GroupMemory memory = w.group().memory();
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (!w.active(lane)) {
                continue;
            }
            final int l = lane;
            long node = Integer.toUnsignedLong(w.vgpr(address[0], lane));
            int at = 1;
            if (wide) {
                node |= (long) w.vgpr(address[1], lane) << 32;
                at = 2;
            }
            float[] v = new float[10];
            for (int k = 0; k < 4; k++) {
                v[k] = Float.intBitsToFloat(w.vgpr(address[at + k], lane));
            }
            if (m.a16()) {
                for (int k = 0; k < 3; k++) {
                    int pair = w.vgpr(address[at + 4 + k], lane);
                    v[4 + 2 * k] = half(pair & 0xFFFF);
                    v[5 + 2 * k] = half(pair >>> 16);
                }
            } else {
                for (int k = 4; k < 10; k++) {
                    v[k] = Float.intBitsToFloat(w.vgpr(address[at + k], lane));
                }
            }
            if (!descriptor.holds(node)) {
                throw new GuestFault(String.format("%s: lane %d's node pointer 0x%x (a %s node at 64-byte unit %d) lies "
                        + "past the BVH descriptor's SIZE of %d units (s[%d:%d]): what the hardware returns for it is not "
                        + "modelled", insn.mnemonic(), lane, node, NodeType.of(node), node >>> 3, descriptor.sizeUnits() + 1,
                        s, s + 3), lane);
            }
            Ray ray = new Ray(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]);
            int[] result = NodeTest.intersect(descriptor, node, ray, a -> (int) memory.load(a, 4, l));
            for (int k = 0; k < 4; k++) {
                w.setVgpr(m.vdata() + k, lane, result[k]);
            }
        }
    }

    private static float half(int bits) {
        return Float.intBitsToFloat(Half.toFloatBits(bits));
    }

    // ---------------------------------------------------------------- the fast tier's form

    /**
     * The fast tier's form of a BVH intersection, or null when the instruction is one the reference handler
     * faults on at once (D16, TFE, LWE, a DMASK other than 0xf, an NSA list too short) or names a VGPR past the
     * allocation (the reference then raises its fault). The address VGPRs are resolved once; per lane the
     * node's dwords are read as one block ({@link GroupMemory#loadDwords}) and tested by {@link BvhKernel}
     * without allocation, bit for bit as {@link NodeTest} computes. Whatever is unusual runs the reference
     * code: a resource that is not a BVH or a node past SIZE in any active lane (the whole instruction, before
     * any write: the reference then writes the lanes before the faulting one and faults), and a node whose block
     * does not lie whole in one memory range (that lane, through {@link NodeTest} and per-dword reads, so a
     * fault names the same dword and lane).
     */
    public static org.replayfarm.evalnode.hostmodel.semantics.Semantics fast(Instruction insn, int vgprs) {
        Fields.Mimg m = (Fields.Mimg) insn.fields();
        String addr = insn.opcode().flagValue(org.replayfarm.model.isa.OpcodeFlag.ADDR);
        boolean wide = "12".equals(addr);
        if (!wide && !"11".equals(addr) || m.d16() || m.tfe() || m.lwe() || m.dmask() != 0xF) {
            return null;
        }
        int count = (wide ? 12 : 11) - (m.a16() ? 3 : 0);
        int[] address = new int[count];
        try {
            for (int i = 0; i < count; i++) {
                address[i] = ImageUnit.addressVgpr(m, i);
                if (address[i] < 0 || address[i] >= vgprs) {
                    return null;
                }
            }
        } catch (GuestFault e) {
            return null;
        }
        if (m.vdata() < 0 || m.vdata() + 4 > vgprs) {
            return null;
        }
        return (w, i) -> intersectFast(w, insn, m, wide, address);
    }

    private static void intersectFast(Wave w, Instruction insn, Fields.Mimg m, boolean wide, int[] address) {
        int s = m.srsrc();
        BvhDescriptor descriptor = BvhDescriptor.decode(w.sgpr(s), w.sgpr(s + 1), w.sgpr(s + 2), w.sgpr(s + 3));
        long exec = w.exec();
        int n = w.waveSize();
        int[] v = w.vgprFile();
        int a0 = address[0] * n;
        int a1 = wide ? address[1] * n : 0;
        boolean usual = descriptor.type() == BvhDescriptor.TYPE_BVH;
        for (long lanes = exec; usual && lanes != 0; lanes &= lanes - 1) {
            int l = Long.numberOfTrailingZeros(lanes);
            long node = Integer.toUnsignedLong(v[a0 + l]) | (wide ? (long) v[a1 + l] << 32 : 0);
            usual = descriptor.holds(node);
        }
        if (!usual) {
            intersect(w, insn, wide); // the reference: it faults where it always did
            return;
        }
        GroupMemory memory = w.group().memory();
        int at = wide ? 2 : 1;
        int[] block = new int[BvhKernel.BLOCK_DWORDS];
        int[] out = new int[4];
        float grow = 1f + descriptor.boxGrowUlp() * 0x1p-24f;
        int d = m.vdata() * n;
        boolean a16 = m.a16();
        for (long lanes = exec; lanes != 0; lanes &= lanes - 1) {
            lane(Long.numberOfTrailingZeros(lanes), v, n, address, at, wide, a0, a1, a16, descriptor, memory, block, out,
                    grow, d);
        }
    }

    /**
     * One lane of {@link #intersectFast}: its ray and node from its registers, the node test, the four results
     * into its registers. A method of its own so that the JIT compiles it as an ordinary hot method (inside the
     * loop it made the loop's method a long-running one, compiled on-stack-replacement twice before the
     * ordinary compilation: 4 C2 compilations, 0.4 s of CPU in the 1080p shadow pass).
     */
    private static void lane(int l, int[] v, int n, int[] address, int at, boolean wide, int a0, int a1, boolean a16,
                             BvhDescriptor descriptor, GroupMemory memory, int[] block, int[] out, float grow, int d) {
        long node = Integer.toUnsignedLong(v[a0 + l]) | (wide ? (long) v[a1 + l] << 32 : 0);
        float extent = Float.intBitsToFloat(v[address[at] * n + l]);
        float ox = Float.intBitsToFloat(v[address[at + 1] * n + l]);
        float oy = Float.intBitsToFloat(v[address[at + 2] * n + l]);
        float oz = Float.intBitsToFloat(v[address[at + 3] * n + l]);
        float dx;
        float dy;
        float dz;
        float ix;
        float iy;
        float iz;
        if (a16) {
            int p0 = v[address[at + 4] * n + l];
            int p1 = v[address[at + 5] * n + l];
            int p2 = v[address[at + 6] * n + l];
            dx = half(p0 & 0xFFFF);
            dy = half(p0 >>> 16);
            dz = half(p1 & 0xFFFF);
            ix = half(p1 >>> 16);
            iy = half(p2 & 0xFFFF);
            iz = half(p2 >>> 16);
        } else {
            dx = Float.intBitsToFloat(v[address[at + 4] * n + l]);
            dy = Float.intBitsToFloat(v[address[at + 5] * n + l]);
            dz = Float.intBitsToFloat(v[address[at + 6] * n + l]);
            ix = Float.intBitsToFloat(v[address[at + 7] * n + l]);
            iy = Float.intBitsToFloat(v[address[at + 8] * n + l]);
            iz = Float.intBitsToFloat(v[address[at + 9] * n + l]);
        }
        long nodeAddress = descriptor.nodeAddress(node);
        int type = (int) (node & 7);
        boolean done;
        if (type >= 6) {
            out[0] = out[1] = out[2] = out[3] = 0xFFFFFFFF; // instance, procedural: no memory read
            done = true;
        } else if (type >= 4) {
            boolean box16 = type == 4;
            done = memory.loadDwords(nodeAddress, box16 ? 16 : 28, block, l);
            if (done) {
                BvhKernel.box(block, box16, grow, descriptor.boxSorting(), extent, ox, oy, oz, ix, iy, iz, out);
            }
        } else {
            done = memory.loadDwords(nodeAddress, 16, block, l);
            if (done) {
                BvhKernel.triangle(block, type, descriptor.returnBarycentrics(), ox, oy, oz, dx, dy, dz, out);
            }
        }
        if (!done) {
            Ray ray = new Ray(extent, ox, oy, oz, dx, dy, dz, ix, iy, iz);
            int[] r = NodeTest.intersect(descriptor, node, ray, x -> (int) memory.load(x, 4, l));
            System.arraycopy(r, 0, out, 0, 4);
        }
        for (int k = 0; k < 4; k++) {
            v[d + k * n + l] = out[k];
        }
    }
}
