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
}
