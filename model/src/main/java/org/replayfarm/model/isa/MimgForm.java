package org.replayfarm.model.isa;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The address and data facts of one MIMG table row (its flags, described in the header of {@code MIMG.tsv}),
 * read once per row.
 *
 * @param data           the data widths llvm has a form for, each {@code {width, registers printed}}, default first
 * @param plainAddresses address counts of the plain (one register range) form, default first
 * @param nsaAddresses   address counts of the NSA form
 */
record MimgForm(boolean sampler, boolean gather4, boolean bvh, boolean nsaTwoSpaces, int extra, boolean coords,
                boolean lod, boolean grad, boolean g16, List<int[]> data, List<Integer> plainAddresses,
                List<Integer> nsaAddresses, int bvhAddresses, int bvhAddressesA16) {
    /** Coordinates per dim (1D, 2D, 3D, CUBE, 1D_ARRAY, 2D_ARRAY, 2D_MSAA, 2D_MSAA_ARRAY). */
    private static final int[] COORDS = {1, 2, 3, 3, 2, 3, 3, 4};
    /** Derivatives per dim. */
    private static final int[] GRADIENTS = {2, 4, 6, 4, 2, 4, 4, 4};
    private static final Map<Opcode, MimgForm> CACHE = new ConcurrentHashMap<>();

    static MimgForm of(Opcode op) {
        return CACHE.computeIfAbsent(op, MimgForm::parse);
    }

    /** The address dwords the row needs for a dim, with 16-bit coordinates when a16 is set. */
    int addresses(int dim, boolean a16) {
        int values = (coords ? COORDS[dim] : 0) + (lod ? 1 : 0);
        int n = extra + (a16 ? (values + 1) / 2 : values);
        if (grad) {
            n += g16 ? (GRADIENTS[dim] / 2 + 1) / 2 * 2 : GRADIENTS[dim];
        }
        return n;
    }

    private static MimgForm parse(Opcode op) {
        List<int[]> data = new ArrayList<>();
        List<Integer> plain = new ArrayList<>();
        List<Integer> nsa = new ArrayList<>();
        int extra = 0;
        int bvh = -1;
        int bvhA16 = -1;
        for (OpcodeFlag flag : op.flagSet()) {
            String value = op.flagValue(flag);
            switch (flag) {
                case EXTRA -> extra = Integer.parseInt(value);
                case ADDR -> bvh = Integer.parseInt(value);
                case ADDR_A16 -> bvhA16 = Integer.parseInt(value);
                case VDATA -> {
                    for (String w : value.split("\\|")) {
                        int gt = w.indexOf('>');
                        int width = Integer.parseInt(gt < 0 ? w : w.substring(0, gt));
                        data.add(new int[] {width, gt < 0 ? width : Integer.parseInt(w.substring(gt + 1))});
                    }
                }
                case VADDR -> plain.addAll(numbers(value));
                case NSA -> nsa.addAll(numbers(value));
                default -> {
                    if (flag.valued) {
                        throw new IllegalStateException("MIMG table: flag " + flag.text() + " of " + op + " has no meaning here");
                    }
                }
            }
        }
        if (data.isEmpty() || !op.has(OpcodeFlag.BVH) && plain.isEmpty()) {
            throw new IllegalStateException("MIMG table: " + op + " lacks its vdata= or vaddr= facts");
        }
        return new MimgForm(op.has(OpcodeFlag.SAMPLER), op.has(OpcodeFlag.GATHER4), op.has(OpcodeFlag.BVH),
                op.has(OpcodeFlag.NSA2), extra, op.has(OpcodeFlag.COORDS), op.has(OpcodeFlag.LOD), op.has(OpcodeFlag.GRAD),
                op.has(OpcodeFlag.G16), List.copyOf(data), List.copyOf(plain), List.copyOf(nsa), bvh, bvhA16);
    }

    private static List<Integer> numbers(String list) {
        List<Integer> out = new ArrayList<>();
        for (String n : list.split("\\|")) {
            out.add(Integer.parseInt(n));
        }
        return out;
    }
}
