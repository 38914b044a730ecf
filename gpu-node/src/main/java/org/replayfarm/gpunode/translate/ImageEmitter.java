package org.replayfarm.gpunode.translate;

import java.util.ArrayList;
import java.util.List;
import org.replayfarm.model.isa.AtomicOp;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.MemoryAccess;

/**
 * The image unit: MIMG (image_load[_mip], image_store[_mip], image_get_resinfo, the sixteen image atomics,
 * image_sample, image_sample_lz, image_sample_l, image_bvh_intersect_ray, image_bvh64_intersect_ray), MUBUF
 * {@code buffer_load/store_format_*} and MTBUF {@code tbuffer_*} — every one the host model executes — in
 * software against rt_image.h, over the launch's image section (translate/image/ImageBundle) and, for BVH
 * nodes and formatted buffers, the range table.
 *
 * <p>Shape of each translation: the descriptor (T#, S#, V# or BVH resource) is read from the SGPRs once for
 * the wave and checked (a bad one is the wave's fault, with or without active lanes, as the host model
 * faults before its lane loop); then a lane loop over the active lanes gathers the lane's address VGPRs
 * (VADDR and the registers after it, or the NSA list; A16 packs two 16-bit values a dword), calls the
 * header's per-lane semantics and writes the result VGPRs, whose number is known here (DMASK, D16, TFE);
 * faults are recorded through rt_fault and the wave stops after the loop (RT_CHECK). image_sample's
 * derived LOD needs the quad neighbours' coordinates (lanes l^1 and l^2, active or not): they are gathered
 * for every lane before the active loop (shuffles on the GPU).
 *
 * <p>Refused up front (PC, mnemonic, reason): the MIMG opcodes the host model does not execute (gather4,
 * sample_c/_b/_d/_o/_cl/_cd, get_lod, the _pck forms, msaa_load, ...), an LDS-bit MUBUF format access.
 * Encodings the host model faults on when executed (a cube or MSAA sample, an MSAA load, an NSA list
 * shorter than the addresses, a BVH form outside the ISA's restrictions) are translated as that fault.
 */
public final class ImageEmitter implements UnitEmitter {
    private static final int[] COORDS = {1, 2, 3, 3, 2, 3, 3, 4};

    @Override
    public String unit() {
        return "image";
    }

    @Override
    public void emit(InsnContext cx) throws Refusal {
        cx.include("rt_image.h");
        String m = cx.mnemonic();
        if (cx.encoding() == Encoding.MUBUF || cx.encoding() == Encoding.MTBUF) {
            if (!cx.opcode().memory().format()) {
                throw cx.refuse("not a formatted buffer access (the memory unit's)");
            }
            buffer(cx);
            return;
        }
        if (cx.encoding() != Encoding.MIMG) {
            throw cx.refuse("encoding " + cx.encoding() + " is not the image unit's");
        }
        Fields.Mimg f = cx.fields(Fields.Mimg.class);
        switch (m) {
            case "image_load" -> load(cx, f, false);
            case "image_load_mip" -> load(cx, f, true);
            case "image_store" -> store(cx, f, false);
            case "image_store_mip" -> store(cx, f, true);
            case "image_get_resinfo" -> resinfo(cx, f);
            case "image_sample" -> sample(cx, f, "derived");
            case "image_sample_lz" -> sample(cx, f, "zero");
            case "image_sample_l" -> sample(cx, f, "explicit");
            case "image_bvh_intersect_ray" -> bvh(cx, f, false);
            case "image_bvh64_intersect_ray" -> bvh(cx, f, true);
            default -> {
                if (cx.opcode().memory().isAtomic()) {
                    atomic(cx, f, cx.opcode().memory().atomic());
                } else {
                    throw cx.refuse("the host model does not execute " + m + " (it executes image_load[_mip], "
                            + "image_store[_mip], image_get_resinfo, image_atomic_*, image_sample, image_sample_lz, "
                            + "image_sample_l and the BVH intersections), so there is nothing to compare it with");
                }
            }
        }
    }

    // ---------------------------------------------------------------- operands

    private static String flag(boolean b) {
        return b ? "1" : "0";
    }

    /** The VGPR of address dword k, or null when an NSA list is shorter (the host model faults then). */
    private static Integer addressVgpr(Fields.Mimg f, int k) {
        if (k == 0) {
            return f.vaddr();
        }
        if (f.nsaDwords() > 0) {
            return k - 1 < f.nsaAddresses().size() ? f.nsaAddresses().get(k - 1) : null;
        }
        return f.vaddr() + k;
    }

    /**
     * Declares {@code t_a[]} with a lane's {@code values} address values (A16: two a dword) read from lane
     * {@code lane}; false (and the fault emitted) when the NSA list runs short.
     */
    private static boolean addresses(InsnContext cx, Fields.Mimg f, int values, String lane, String name) {
        int dwords = f.a16() ? (values + 1) / 2 : values;
        List<String> regs = new ArrayList<>();
        for (int k = 0; k < dwords; k++) {
            Integer r = addressVgpr(f, k);
            if (r == null) {
                return false;
            }
            regs.add(cx.vreg(r, lane));
        }
        cx.line("uint32_t %s[%d] = {%s};", name, Math.max(1, dwords), String.join(", ", regs));
        return true;
    }

    private static void nsaFault(InsnContext cx) {
        cx.line("/* the NSA list is shorter than the instruction's addresses: the host model faults */");
        cx.line("RT_FAULT_NOW(RT_FAULT_OTHER, %s, -1, 0);", cx.pcC());
    }

    private static boolean checkAddresses(InsnContext cx, Fields.Mimg f, int values) {
        int dwords = f.a16() ? (values + 1) / 2 : values;
        for (int k = 0; k < dwords; k++) {
            if (addressVgpr(f, k) == null) {
                nsaFault(cx);
                return false;
            }
        }
        return true;
    }

    /** Reads the T# (8 SGPRs, 4 with R128) and builds the view, faulting the wave when it names no image. */
    private static void view(InsnContext cx, Fields.Mimg f) throws Refusal {
        int n = f.r128() ? 4 : 8;
        List<String> words = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            words.add(cx.sreg(f.srsrc() + i));
        }
        cx.line("uint32_t t_rs[%d] = {%s};", n, String.join(", ", words));
        cx.line("rt_images_t t_im = rt_img_images_of(C);");
        cx.line("rt_img_view_t t_v;");
        cx.line("int t_e = rt_img_view(&t_im, t_rs, %s, &t_v);", flag(f.r128()));
        cx.line("if (t_e) { rt_img_fault(C, %s, -1, t_e); RT_CHECK(); }", cx.pcC());
    }

    /** Writes the lane's result VGPRs t_o[0..count). */
    private static void results(InsnContext cx, int vdata, int count, String lane) {
        for (int r = 0; r < count; r++) {
            cx.line("    %s = t_o[%d];", cx.vreg(vdata + r, lane), r);
        }
    }

    private static int resultRegs(Fields.Mimg f) {
        int mask = f.dmask() == 0 ? 1 : f.dmask();
        int n = Integer.bitCount(mask & 0xF);
        return (f.d16() ? (n + 1) / 2 : n) + (f.tfe() ? 1 : 0);
    }

    // ---------------------------------------------------------------- image_load / store / resinfo / atomics

    private static void load(InsnContext cx, Fields.Mimg f, boolean mip) throws Refusal {
        view(cx, f);
        int values = COORDS[f.dim()] + (mip ? 1 : 0);
        if (!checkAddresses(cx, f, values)) {
            return;
        }
        cx.line("RT_FOR_ACTIVE(t_l) {");
        addresses(cx, f, values, "t_l", "t_a");
        cx.line("    uint32_t t_o[5]; int t_err = 0;");
        cx.line("    rt_img_load(&t_v, %d, 0x%xu, %s, %s, %s, %s, t_a, t_o, &t_err);", f.dim(), f.dmask(), flag(f.a16()),
                flag(f.d16()), flag(f.tfe()), flag(mip));
        cx.line("    if (t_err) { rt_img_fault(C, %s, -1, t_err); break; }", cx.pcC());
        results(cx, f.vdata(), resultRegs(f), "t_l");
        cx.line("}");
        cx.line("RT_CHECK();");
    }

    private static void store(InsnContext cx, Fields.Mimg f, boolean mip) throws Refusal {
        view(cx, f);
        int values = COORDS[f.dim()] + (mip ? 1 : 0);
        if (!checkAddresses(cx, f, values)) {
            return;
        }
        int mask = f.dmask() == 0 ? 1 : f.dmask();
        int n = Integer.bitCount(mask & 0xF);
        int regs = f.d16() ? (n + 1) / 2 : n;
        cx.line("RT_FOR_ACTIVE(t_l) {");
        addresses(cx, f, values, "t_l", "t_a");
        List<String> data = new ArrayList<>();
        for (int r = 0; r < regs; r++) {
            data.add(cx.vreg(f.vdata() + r, "t_l"));
        }
        cx.line("    uint32_t t_d[4] = {%s};", String.join(", ", data));
        cx.line("    int t_err = 0;");
        cx.line("    rt_img_store(&t_v, %d, 0x%xu, %s, %s, %s, t_a, t_d, &t_err);", f.dim(), f.dmask(), flag(f.a16()),
                flag(f.d16()), flag(mip));
        cx.line("    if (t_err) { rt_img_fault(C, %s, -1, t_err); break; }", cx.pcC());
        cx.line("}");
        cx.line("RT_SYNC_WAVE();");
        cx.line("RT_CHECK();");
    }

    private static void resinfo(InsnContext cx, Fields.Mimg f) throws Refusal {
        view(cx, f);
        if (!checkAddresses(cx, f, 1)) {
            return;
        }
        cx.line("RT_FOR_ACTIVE(t_l) {");
        addresses(cx, f, 1, "t_l", "t_a");
        cx.line("    uint32_t t_o[5];");
        cx.line("    rt_img_resinfo(&t_v, %d, 0x%xu, %s, %s, %s, t_a, t_o);", f.dim(), f.dmask(), flag(f.a16()),
                flag(f.d16()), flag(f.tfe()));
        results(cx, f.vdata(), resultRegs(f), "t_l");
        cx.line("}");
    }

    private static void atomic(InsnContext cx, Fields.Mimg f, AtomicOp a) throws Refusal {
        String op = MemoryEmitter.c(a);
        view(cx, f);
        cx.line("uint32_t t_bytes = rt_img_atomic_bytes(&t_v, %s, 0x%xu);", op, f.dmask());
        cx.line("if (!t_bytes) { rt_img_fault(C, %s, -1, RT_IMG_E_ATOMIC); RT_CHECK(); }", cx.pcC());
        int regs = Integer.bitCount(f.dmask() & 0xF);
        boolean compare = a.compares();
        int bytes = (compare ? regs / 2 : regs) * 4;
        if (bytes != 4 && bytes != 8) {
            return; // the runtime check above faults every time
        }
        int values = COORDS[f.dim()];
        if (!checkAddresses(cx, f, values)) {
            return;
        }
        int dw = bytes / 4;
        cx.line("RT_FOR_ACTIVE(t_l) {");
        addresses(cx, f, values, "t_l", "t_a");
        cx.line("    int t_err = 0;");
        cx.line("    int64_t t_tx = rt_img_lane_texel(&t_v, %d, %s, 0, t_a, &t_err);", f.dim(), flag(f.a16()));
        cx.line("    if (t_err) { rt_img_fault(C, %s, -1, t_err); break; }", cx.pcC());
        cx.line("    uint64_t t_data = %s;", dw == 2 ? cx.vreg64(f.vdata(), "t_l") : cx.vreg(f.vdata(), "t_l"));
        cx.line("    uint64_t t_cmp = %s;", !compare ? "0"
                : dw == 2 ? cx.vreg64(f.vdata() + 2, "t_l") : cx.vreg(f.vdata() + 1, "t_l"));
        cx.line("    uint64_t t_old = rt_img_atomic(&t_v, %s, t_bytes, t_tx, t_data, t_cmp);", op);
        if (f.glc()) {
            cx.line("    %s", dw == 2 ? cx.writeV64(f.vdata(), "t_l", "t_old")
                    : cx.vreg(f.vdata(), "t_l") + " = (uint32_t)t_old;");
        } else {
            cx.line("    (void)t_old;");
        }
        cx.line("}");
        cx.line("RT_SYNC_WAVE();");
        cx.line("RT_CHECK();");
    }

    // ---------------------------------------------------------------- sampling

    private static void sample(InsnContext cx, Fields.Mimg f, String lod) throws Refusal {
        if (f.dim() >= 6) {
            cx.line("/* DIM %d (MSAA): the host model does not sample MSAA images; it faults */", f.dim());
            cx.line("RT_FAULT_NOW(RT_FAULT_OTHER, %s, -1, RT_IMG_E_DIM);", cx.pcC());
            return;
        }
        boolean cube = f.dim() == 3;
        boolean explicitLod = lod.equals("explicit");
        view(cx, f);
        cx.line("t_e = rt_img_sample_check(&t_v, %d);", f.dim());
        cx.line("if (t_e) { rt_img_fault(C, %s, -1, t_e); RT_CHECK(); }", cx.pcC());
        List<String> samp = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            samp.add(cx.sreg(f.ssamp() + i));
        }
        cx.line("uint32_t t_ss[4] = {%s};", String.join(", ", samp));
        cx.line("rt_ssharp_t t_s; rt_img_ssharp(t_ss, &t_s);");
        if (cube) {
            cx.line("rt_img_cube_sampler(&t_s);");
            if (lod.equals("derived")) {
                // the quad's LOD across cube faces is not modelled: one level and one filter only, where it changes nothing
                cx.line("if (RT_EXEC != 0 && (t_v.levels != 1 || t_s.mag != t_s.min)) { rt_img_fault(C, %s, -1, "
                        + "RT_IMG_E_CUBE); RT_CHECK(); }", cx.pcC());
                lod = "zero";
            }
        }
        cx.line("int t_un = %s || t_s.force_unnorm;", flag(f.unorm()));
        cx.line("float t_border[4];");
        cx.line("if (RT_EXEC != 0) { t_e = rt_img_border(&t_s, t_border); if (t_e) { rt_img_fault(C, %s, -1, t_e); "
                + "RT_CHECK(); } }", cx.pcC());
        int coords = COORDS[f.dim()];
        int values = coords + (explicitLod ? 1 : 0);
        if (!checkAddresses(cx, f, values)) {
            return;
        }
        int coordDwords = f.a16() ? (coords + 1) / 2 : coords;
        if (lod.equals("derived")) {
            // every lane's quad neighbours' coordinates, gathered by every thread before the active loop
            cx.line("uint32_t t_hz[RT_LPT][%d], t_vt[RT_LPT][%d];", coordDwords, coordDwords);
            cx.line("RT_FOR_LANES(t_l) {");
            for (int k = 0; k < coordDwords; k++) {
                int r = addressVgpr(f, k);
                cx.vreg(r, "t_l"); // an address past the allocation is the instruction's VGPR fault
                cx.line("    t_hz[RT_SLOT(t_l)][%d] = RT_IMG_GATHER(%d, t_l ^ 1);", k, r);
                cx.line("    t_vt[RT_SLOT(t_l)][%d] = RT_IMG_GATHER(%d, t_l ^ 2);", k, r);
            }
            cx.line("}");
        }
        cx.line("RT_FOR_ACTIVE(t_l) {");
        addresses(cx, f, values, "t_l", "t_a");
        cx.line("    rt_img_at_t t_at; rt_img_sample_at(%d, %s, t_a, &t_at);", f.dim(), flag(f.a16()));
        cx.line("    int t_err = 0;");
        switch (lod) {
            case "zero" -> cx.line("    double t_lod = 0.0;");
            case "explicit" -> cx.line("    double t_lod = (double)rt_img_addr_float(t_a, %s, %d);", flag(f.a16()), coords);
            default -> {
                cx.line("    rt_img_at_t t_ah, t_av;");
                cx.line("    rt_img_sample_at(%d, %s, t_hz[RT_SLOT(t_l)], &t_ah);", f.dim(), flag(f.a16()));
                cx.line("    rt_img_sample_at(%d, %s, t_vt[RT_SLOT(t_l)], &t_av);", f.dim(), flag(f.a16()));
                cx.line("    double t_lod = rt_img_derived_lod(&t_v, t_un, &t_at, &t_ah, &t_av, &t_err) "
                        + "+ t_s.lod_bias / 256.0;");
            }
        }
        cx.line("    uint32_t t_o[5];");
        cx.line("    if (!t_err) rt_img_sample(&t_v, &t_s, t_un, &t_at, t_lod, t_border, 0x%xu, %s, %s, t_o, &t_err);",
                f.dmask(), flag(f.d16()), flag(f.tfe()));
        cx.line("    if (t_err) { rt_img_fault(C, %s, -1, t_err); break; }", cx.pcC());
        results(cx, f.vdata(), resultRegs(f), "t_l");
        cx.line("}");
        cx.line("RT_CHECK();");
    }

    // ---------------------------------------------------------------- BVH

    private static void bvh(InsnContext cx, Fields.Mimg f, boolean wide) throws Refusal {
        List<String> words = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            words.add(cx.sreg(f.srsrc() + i));
        }
        cx.line("uint32_t t_rs[4] = {%s};", String.join(", ", words));
        cx.line("rt_bvh_desc_t t_bd; rt_bvh_desc(t_rs, &t_bd);");
        cx.line("if (t_bd.type != 8u) RT_FAULT_NOW(RT_FAULT_OTHER, %s, -1, RT_IMG_E_TYPE);", cx.pcC());
        if (f.d16() || f.tfe() || f.lwe() || f.dmask() != 0xF) {
            cx.line("/* D16 %s, TFE %s, LWE %s, DMASK 0x%x: outside the ISA's restrictions; the host model faults */",
                    flag(f.d16()), flag(f.tfe()), flag(f.lwe()), f.dmask());
            cx.line("RT_FAULT_NOW(RT_FAULT_OTHER, %s, -1, RT_IMG_E_BVH_FORM);", cx.pcC());
            return;
        }
        int count = (wide ? 12 : 11) - (f.a16() ? 3 : 0);
        List<String> regs = new ArrayList<>();
        for (int k = 0; k < count; k++) {
            Integer r = addressVgpr(f, k);
            if (r == null) {
                nsaFault(cx);
                return;
            }
            regs.add(cx.vreg(r, "t_l"));
        }
        cx.line("RT_FOR_ACTIVE(t_l) {");
        cx.line("    uint32_t t_a[%d] = {%s};", count, String.join(", ", regs));
        cx.line("    uint32_t t_o[4];");
        cx.line("    if (rt_img_bvh_lane(C, &t_bd, %s, t_l, %s, %s, t_a, t_o)) break;", cx.pcC(), flag(f.a16()),
                flag(wide));
        results(cx, f.vdata(), 4, "t_l");
        cx.line("}");
        cx.line("RT_CHECK();");
    }

    // ---------------------------------------------------------------- formatted buffers

    private static void buffer(InsnContext cx) throws Refusal {
        int offset;
        boolean offen;
        boolean idxen;
        boolean tfe;
        int vaddr;
        int vdata;
        int srsrc;
        int soffset;
        String format;
        if (cx.encoding() == Encoding.MUBUF) {
            Fields.Mubuf b = cx.fields(Fields.Mubuf.class);
            if (b.lds()) {
                throw cx.refuse("the LDS bit (a load into LDS) is not modelled by the host model");
            }
            offset = b.offset();
            offen = b.offen();
            idxen = b.idxen();
            tfe = b.tfe();
            vaddr = b.vaddr();
            vdata = b.vdata();
            srsrc = b.srsrc();
            soffset = b.soffset();
            format = "t_iv.format";
        } else {
            Fields.Mtbuf b = cx.fields(Fields.Mtbuf.class);
            offset = b.offset();
            offen = b.offen();
            idxen = b.idxen();
            tfe = b.tfe();
            vaddr = b.vaddr();
            vdata = b.vdata();
            srsrc = b.srsrc();
            soffset = b.soffset();
            format = b.format() + "u";
        }
        MemoryAccess access = cx.opcode().memory();
        boolean load = access.isLoad();
        boolean d16 = access.d16();
        boolean hi = access.half() == MemoryAccess.Half.HIGH;
        int count = access.components();
        List<String> words = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            words.add(cx.sreg(srsrc + i));
        }
        cx.line("uint32_t t_rs[4] = {%s};", String.join(", ", words));
        cx.line("rt_img_vsharp_t t_iv; rt_img_vsharp(t_rs, &t_iv);");
        cx.line("rt_img_fmt_t t_f;");
        cx.line("if (!rt_img_buf_format(%s, &t_f)) RT_FAULT_NOW(RT_FAULT_OTHER, %s, -1, RT_IMG_E_BUFFMT);", format,
                cx.pcC());
        cx.line("uint32_t t_so = %s;", cx.src32(soffset));
        cx.line("RT_FOR_ACTIVE(t_l) {");
        String v0 = idxen || offen ? cx.vreg(vaddr, "t_l") : "0u";
        String v1 = idxen && offen ? cx.vreg(vaddr + 1, "t_l") : "0u";
        cx.line("    rt_img_bufl_t t_bl = rt_img_buf_lane(&t_iv, %s, %s, %s, %s, %du, t_so, (uint32_t)t_l);", flag(idxen),
                flag(offen), v0, v1, offset);
        cx.line("    int t_in = rt_img_buf_in_range(&t_iv, &t_bl, t_f.bytes);");
        cx.line("    uint8_t t_el[16]; memset(t_el, 0, sizeof t_el);");
        if (load) {
            int regs = d16 ? (count + 1) / 2 : count;
            cx.line("    if (t_in && rt_img_buf_bytes(C, &t_iv, &t_bl, t_f.bytes, 0, t_el, %s, t_l)) break;", cx.pcC());
            cx.line("    uint32_t t_o[4];");
            cx.line("    rt_img_buf_load_result(&t_f, t_iv.dst_sel, t_in, t_el, %du, %s, %s, %s, %s, t_o);", count,
                    flag(d16), flag(hi), cx.vreg(vdata, "t_l"), cx.vreg(vdata + (regs - 1), "t_l"));
            results(cx, vdata, regs, "t_l");
            if (tfe) {
                cx.line("    %s = 0u;", cx.vreg(vdata + regs, "t_l"));
            }
        } else {
            int regs = d16 ? (count + 1) / 2 : count;
            List<String> data = new ArrayList<>();
            for (int r = 0; r < regs; r++) {
                data.add(cx.vreg(vdata + r, "t_l"));
            }
            cx.line("    uint32_t t_d[4] = {%s};", String.join(", ", data));
            cx.line("    if (!t_in) continue;");
            cx.line("    int t_err = 0;");
            cx.line("    uint32_t t_n = rt_img_buf_store_bytes(&t_f, %du, %s, %s, t_d, t_el, &t_err);", count, flag(d16),
                    flag(hi));
            cx.line("    if (t_err) { rt_img_fault(C, %s, -1, t_err); break; }", cx.pcC());
            cx.line("    if (rt_img_buf_bytes(C, &t_iv, &t_bl, t_n, 1, t_el, %s, t_l)) break;", cx.pcC());
        }
        cx.line("}");
        if (!load) {
            cx.line("RT_SYNC_WAVE();");
        }
        cx.line("RT_CHECK();");
    }
}
