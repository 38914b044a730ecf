package org.replayfarm.model.isa;

/**
 * The fields of one decoded instruction, a record per encoding, as the hardware lays them out (RDNA 2
 * ISA guide, "Microcode Formats"). Register fields hold the raw operand codes: for 8- and 9-bit source
 * fields see {@link Operands}; VGPR-only fields hold the VGPR number.
 */
public sealed interface Fields {
    /** s_* with one source: SDST [22:16], SSRC0 [7:0]. */
    record Sop1(int sdst, int ssrc0) implements Fields {
    }

    /** SDST [22:16], SSRC1 [15:8], SSRC0 [7:0]. */
    record Sop2(int sdst, int ssrc0, int ssrc1) implements Fields {
    }

    /** SDST [22:16], SIMM16 [15:0] (raw; the row says whether it is signed). */
    record Sopk(int sdst, int simm16) implements Fields {
    }

    /** SSRC1 [15:8], SSRC0 [7:0]. */
    record Sopc(int ssrc0, int ssrc1) implements Fields {
    }

    /** SIMM16 [15:0]. */
    record Sopp(int simm16) implements Fields {
    }

    /** SBASE (an SGPR number, even), SDATA, GLC, DLC; OFFSET [52:32] signed 21-bit; SOFFSET [63:57]. */
    record Smem(int sbase, int sdata, boolean glc, boolean dlc, int offset, int soffset) implements Fields {
    }

    /** VDST [24:17], SRC0 [8:0]; plus a DPP or SDWA dword when SRC0 names one. */
    record Vop1(int vdst, int src0, ValuVariant variant) implements Fields {
    }

    /** VDST [24:17], VSRC1 [16:9], SRC0 [8:0]. */
    record Vop2(int vdst, int src0, int vsrc1, ValuVariant variant) implements Fields {
    }

    /** VSRC1 [16:9], SRC0 [8:0]; the destination is VCC (or EXEC for v_cmpx). */
    record Vopc(int src0, int vsrc1, ValuVariant variant) implements Fields {
    }

    /**
     * VOP3: VDST [7:0], ABS [10:8] or SDST [14:8] (the scalar-destination form, {@code sdst >= 0}),
     * OPSEL [14:11], CLAMP [15]; SRC0/1/2 9-bit, OMOD [60:59], NEG [63:61].
     */
    record Vop3(int vdst, int sdst, int abs, int opsel, boolean clamp, int src0, int src1, int src2, int omod, int neg)
            implements Fields {
    }

    /** VOP3P: VDST, NEG_HI [10:8], OPSEL [13:11], OPSEL_HI [14] and [60:59], CLAMP, SRC0/1/2, NEG_LO [63:61]. */
    record Vop3p(int vdst, int negHi, int opsel, int opselHi, boolean clamp, int src0, int src1, int src2, int negLo)
            implements Fields {
    }

    /** DS: OFFSET0 [7:0], OFFSET1 [15:8], GDS [17]; ADDR, DATA0, DATA1, VDST (VGPR numbers). */
    record Ds(int offset0, int offset1, boolean gds, int addr, int data0, int data1, int vdst) implements Fields {
    }

    /** MUBUF: OFFSET [11:0], OFFEN, IDXEN, GLC, DLC, LDS; VADDR, VDATA, SRSRC (SGPR number), SLC, TFE, SOFFSET. */
    record Mubuf(int offset, boolean offen, boolean idxen, boolean glc, boolean dlc, boolean lds, int vaddr, int vdata,
                 int srsrc, boolean slc, boolean tfe, int soffset) implements Fields {
    }

    /** MTBUF: as MUBUF without LDS, plus FORMAT [25:19]. */
    record Mtbuf(int offset, boolean offen, boolean idxen, boolean glc, boolean dlc, int format, int vaddr, int vdata,
                 int srsrc, boolean slc, boolean tfe, int soffset) implements Fields {
    }

    /**
     * MIMG: NSA dwords [2:1], DIM [5:3], DLC, DMASK [11:8], UNORM, GLC, R128, TFE, LWE, SLC; VADDR, VDATA,
     * SRSRC and SSAMP (SGPR numbers), A16, D16; {@code nsaAddresses} the VGPRs of the extra NSA bytes.
     */
    record Mimg(int nsaDwords, int dim, boolean dlc, int dmask, boolean unorm, boolean glc, boolean r128, boolean tfe,
                boolean lwe, boolean slc, int vaddr, int vdata, int srsrc, int ssamp, boolean a16, boolean d16,
                java.util.List<Integer> nsaAddresses) implements Fields {
        public Mimg {
            nsaAddresses = java.util.List.copyOf(nsaAddresses);
        }
    }

    /**
     * FLAT, GLOBAL and SCRATCH: OFFSET [11:0] as it lies (read it through {@link FlatOffset}), DLC [12],
     * LDS [13], SEG [15:14], GLC, SLC; ADDR, DATA, SADDR [54:48] (0x7d: off), NV, VDST.
     */
    record Flat(int offset, boolean dlc, boolean lds, int seg, boolean glc, boolean slc, int addr, int data, int saddr,
                boolean nv, int vdst) implements Fields {
    }

    /** EXP: EN [3:0], TARGET [9:4], COMPR, DONE, VM; VSRC0..3. */
    record Exp(int en, int target, boolean compr, boolean done, boolean vm, int vsrc0, int vsrc1, int vsrc2, int vsrc3)
            implements Fields {
    }

    /** VINTRP: VSRC [7:0], ATTRCHAN [9:8], ATTR [15:10], VDST [25:18]. */
    record Vintrp(int vsrc, int attrChan, int attr, int vdst) implements Fields {
    }
}
