package org.replayfarm.gpunode.translate;

import org.replayfarm.model.isa.AtomicOp;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.FlatOffset;
import org.replayfarm.model.isa.MemoryAccess;
import org.replayfarm.model.isa.OpcodeFlag;

/**
 * The memory unit: DS, FLAT, GLOBAL, SCRATCH and MUBUF without a format, as C over rt_mem.h.
 *
 * <p>Every per-lane access follows one shape: inside {@code RT_FOR_ACTIVE(l)} the lane forms its address,
 * the runtime checks the whole access (range table, LDS size, scratch bounds, alignment of atomics) before
 * touching memory, and the first failing lane ends the loop and becomes the fault (lanes run in lane order
 * on the CPU, as in the host model; atomics take turns in lane order on the GPU too, RT_MEM_IN_ORDER, so
 * the values they return do not depend on the warp's scheduling); after the loop {@code RT_SYNC_WAVE()} orders the wave's memory
 * operations (every later instruction of the wave sees what this one wrote, in program order; on the GPU
 * that is {@code __syncwarp()}) and {@code RT_CHECK()} stops a faulting wave. s_waitcnt is then nothing to
 * wait for. DS crossbars (ds_swizzle_b32, ds_permute_b32, ds_bpermute_b32) gather every source lane's value
 * before any lane writes.
 *
 * <p>What an instruction does (load, store or atomic; its width, sign extension, D16 half and atomic operation;
 * the DS pairs and *_addtid forms) is its opcode row's {@link MemoryAccess}, read here and never re-derived from
 * the mnemonic; the mnemonic picks only among the rows that do no load, store or atomic (crossbars, counters).
 *
 * <p>What the host model faults on when executed (a GDS access, the LDS bit of FLAT/MUBUF, the GDS-only
 * DS instructions and ds_condxchg32_rtn_b64 it does not execute) becomes the same fault at run time
 * ({@code RT_FAULT_UNSUPPORTED}); an instruction of another unit routed here, or an operand the unit cannot
 * read, is refused.
 */
public final class MemoryEmitter implements UnitEmitter {
    private static final int SADDR_OFF = 0x7d;

    @Override
    public String unit() {
        return "memory";
    }

    @Override
    public void emit(InsnContext cx) throws Refusal {
        cx.include("rt_mem.h");
        switch (cx.encoding()) {
            case DS -> ds(cx);
            case FLAT, GLOBAL, SCRATCH -> flat(cx);
            case MUBUF -> mubuf(cx);
            default -> throw cx.refuse("not a memory instruction (" + cx.encoding() + ")");
        }
    }

    // ------------------------------------------------------------------ shared pieces

    private static void open(InsnContext cx) {
        cx.line("rt_mem_t t_m = rt_mem_of(C);");
        cx.line("int t_rc = 0, t_fl = -1;");
        cx.line("uint64_t t_fa = 0;");
        cx.line("(void)t_fa;");
    }

    /** After the lane loop: the fault of the first failing lane, then order the wave's memory and stop on a fault. */
    private static void close(InsnContext cx) {
        cx.line("if (t_rc) " + cx.fault("rt_mem_fault_code(t_rc)", "t_fl", "t_fa"));
        cx.line("RT_SYNC_WAVE();");
        cx.line(cx.check());
    }

    /** The statement that ends the lane loop at a failed access. */
    private static final String FAILED = "if (t_rc) { t_fl = l; break; }";
    /** The lane loop of an atomic: lanes one at a time in lane order (RT_MEM_IN_ORDER), until one faults. */
    private static final String IN_ORDER = "RT_MEM_IN_ORDER(l, t_rc) {";
    /** After an atomic's access in RT_MEM_IN_ORDER: the faulting lane, or the rest of the lane's work (closed by "}"). */
    private static final String ATOMIC_DONE = "(void)t_old; if (t_rc) { t_fl = l; } else { ";

    /** Writes the loaded bytes {@code t_b} of a lane to VGPRs from {@code vdst} as the access's width says. */
    private static void writeLoaded(InsnContext cx, int vdst, MemoryAccess w) {
        if (w.bytes() >= 4) {
            for (int d = 0; d < w.dwords(); d++) {
                cx.line("    " + cx.vreg(vdst + d, "l") + " = rt_mem_dword(t_b, " + d + ");");
            }
            return;
        }
        String ext = "rt_mem_extend(t_b, " + w.bytes() + ", " + (w.signed() ? 1 : 0) + ")";
        String v = cx.vreg(vdst, "l");
        if (!w.d16()) {
            cx.line("    " + v + " = " + ext + ";");
        } else {
            cx.line("    " + v + " = rt_mem_d16(" + v + ", " + ext + ", " + (w.half() == MemoryAccess.Half.HIGH ? 1 : 0)
                    + ");");
        }
    }

    /** Fills {@code t_b} with the bytes a store of the access's width takes from VGPRs from {@code data}. */
    private static void storeBytes(InsnContext cx, int data, MemoryAccess w, String into) {
        if (w.bytes() >= 4) {
            for (int d = 0; d < w.dwords(); d++) {
                cx.line("    rt_mem_put_dword(" + into + ", " + d + ", " + cx.vreg(data + d, "l") + ");");
            }
            return;
        }
        cx.line("    { uint32_t t_v = " + cx.vreg(data, "l") + (w.half() == MemoryAccess.Half.HIGH ? " >> 16" : "") + "; "
                + into
                + "[0] = (uint8_t)t_v; " + (w.bytes() == 2 ? into + "[1] = (uint8_t)(t_v >> 8); " : "") + "}");
    }

    /** A 32- or 64-bit VGPR operand of a lane. */
    private static String data(InsnContext cx, int reg, int bytes) {
        return bytes == 8 ? cx.vreg64(reg, "l") : "(uint64_t)" + cx.vreg(reg, "l");
    }

    /** A statement writing an atomic's returned value to VGPRs. */
    private static String writeData(InsnContext cx, int reg, int bytes, String value) {
        return bytes == 8 ? cx.writeV64(reg, "l", value) : cx.vreg(reg, "l") + " = (uint32_t)(" + value + ");";
    }

    private static void faultNow(InsnContext cx, String why) {
        cx.line("/* " + why + " */");
        cx.line("RT_FAULT_NOW(RT_FAULT_UNSUPPORTED, " + cx.pcC() + ", -1, 0);");
    }

    // ------------------------------------------------------------------ DS

    /** The C constant of an atomic operation (rt_atomic.h numbers them as {@link AtomicOp} does). */
    static String c(AtomicOp op) {
        return "RT_AOP_" + op.name();
    }

    private static void ds(InsnContext cx) throws Refusal {
        Fields.Ds f = cx.fields(Fields.Ds.class);
        String m = cx.mnemonic();
        MemoryAccess a = cx.opcode().memory();
        if (f.gds()) {
            faultNow(cx, "GDS access: a replay has no global data share (the host model faults alike)");
            return;
        }
        int offset = f.offset1() << 8 | f.offset0();
        if (cx.opcode().has(OpcodeFlag.GDS_ONLY) || a.isAtomic() && a.atomic() == AtomicOp.CONDXCHG32) {
            faultNow(cx, m + ": not executed by a replay (the host model faults alike)");
            return;
        }
        if (a.kind() == MemoryAccess.Kind.OTHER) {
            switch (m) {
                case "ds_nop" -> cx.line("/* no effect */");
                case "ds_swizzle_b32" -> swizzle(cx, f, offset);
                case "ds_bpermute_b32" -> bpermute(cx, f, offset);
                case "ds_permute_b32" -> permute(cx, f, offset);
                case "ds_append", "ds_consume" -> appendConsume(cx, f, offset, m.equals("ds_append"));
                default -> throw cx.refuse("no translation of " + m);
            }
            return;
        }
        if (a.addtid()) {
            addtid(cx, f, offset, a.isLoad());
        } else if (a.pair() != null) {
            dsPair(cx, f, a);
        } else if (a.isLoad()) {
            dsRead(cx, f, offset, a);
        } else if (a.isStore()) {
            dsWrite(cx, f, offset, a);
        } else {
            dsAtomic(cx, f, offset, a);
        }
    }

    private static String dsAddress(InsnContext cx, Fields.Ds f, long offset) {
        return "rt_ds_addr(" + cx.vreg(f.addr(), "l") + ", " + InsnContext.hex32(offset) + ")";
    }

    private static void dsRead(InsnContext cx, Fields.Ds f, int offset, MemoryAccess w) {
        cx.line("rt_mem_t t_m = rt_mem_of(C);");
        cx.line("RT_FOR_ACTIVE(l) {");
        cx.line("    uint8_t t_b[16];");
        cx.line("    rt_ds_load(&t_m, " + dsAddress(cx, f, offset) + ", " + w.bytes() + ", t_b);");
        writeLoaded(cx, f.vdst(), w);
        cx.line("}");
        cx.line("RT_SYNC_WAVE();");
    }

    private static void dsWrite(InsnContext cx, Fields.Ds f, int offset, MemoryAccess w) {
        cx.line("rt_mem_t t_m = rt_mem_of(C);");
        cx.line("RT_FOR_ACTIVE(l) {");
        cx.line("    uint8_t t_b[16];");
        storeBytes(cx, f.data0(), w, "t_b");
        cx.line("    rt_ds_store(&t_m, " + dsAddress(cx, f, offset) + ", " + w.bytes() + ", t_b);");
        cx.line("}");
        cx.line("RT_SYNC_WAVE();");
    }

    /** read2 / write2 / wrxchg2 (st64): two elements of 4 or 8 bytes at ADDR + OFFSETk * size (* 64). */
    private static void dsPair(InsnContext cx, Fields.Ds f, MemoryAccess w) {
        int size = w.pair().elementBytes();
        long scale = w.pair().offsetUnit();
        String a0 = "(" + cx.vreg(f.addr(), "l") + " + " + InsnContext.hex32(f.offset0() * scale) + ")";
        String a1 = "(" + cx.vreg(f.addr(), "l") + " + " + InsnContext.hex32(f.offset1() * scale) + ")";
        int regs = size / 4;
        if (w.isLoad()) {
            cx.line("rt_mem_t t_m = rt_mem_of(C);");
            cx.line("RT_FOR_ACTIVE(l) {");
            cx.line("    uint8_t t_b[8], t_c[8];");
            cx.line("    rt_ds_load(&t_m, (uint32_t)" + a0 + ", " + size + ", t_b);");
            cx.line("    rt_ds_load(&t_m, (uint32_t)" + a1 + ", " + size + ", t_c);");
            writeLoaded(cx, f.vdst(), w);
            for (int d = 0; d < regs; d++) {
                cx.line("    " + cx.vreg(f.vdst() + regs + d, "l") + " = rt_mem_dword(t_c, " + d + ");");
            }
            cx.line("}");
            cx.line("RT_SYNC_WAVE();");
        } else if (w.isStore()) {
            cx.line("rt_mem_t t_m = rt_mem_of(C);");
            cx.line("RT_FOR_ACTIVE(l) {");
            cx.line("    uint8_t t_b[8], t_c[8];");
            storeBytes(cx, f.data0(), w, "t_b");
            storeBytes(cx, f.data1(), w, "t_c");
            cx.line("    rt_ds_store(&t_m, (uint32_t)" + a0 + ", " + size + ", t_b);");
            cx.line("    rt_ds_store(&t_m, (uint32_t)" + a1 + ", " + size + ", t_c);");
            cx.line("}");
            cx.line("RT_SYNC_WAVE();");
        } else {
            open(cx);
            cx.line(IN_ORDER);
            cx.line("    uint64_t t_o0 = 0, t_o1 = 0;");
            cx.line("    uint64_t t_d0 = " + data(cx, f.data0(), size) + ", t_d1 = " + data(cx, f.data1(), size) + ";");
            cx.line("    t_rc = rt_ds_atomic(&t_m, (uint32_t)" + a0 + ", " + c(w.atomic()) + ", t_d0, 0, " + size + ", &t_o0, &t_fa);");
            cx.line("    if (!t_rc) t_rc = rt_ds_atomic(&t_m, (uint32_t)" + a1 + ", " + c(w.atomic()) + ", t_d1, 0, " + size
                    + ", &t_o1, &t_fa);");
            cx.line("    if (t_rc) { t_fl = l; } else {");
            cx.line("        " + writeData(cx, f.vdst(), size, "t_o0"));
            cx.line("        " + writeData(cx, f.vdst() + regs, size, "t_o1"));
            cx.line("    }");
            cx.line("}");
            close(cx);
        }
    }

    private static void dsAtomic(InsnContext cx, Fields.Ds f, int offset, MemoryAccess a) {
        open(cx);
        cx.line(IN_ORDER);
        cx.line("    uint64_t t_old = 0;");
        String d0 = data(cx, f.data0(), a.bytes());
        String d1 = a.atomic().secondOperand() ? data(cx, f.data1(), a.bytes()) : "0";
        // cmpst: DATA0 is the comparand, DATA1 the new value (the DS order); mskor, wrap: DATA1 is the second operand
        String operand = a.atomic().compares() ? d1 : d0;
        String second = a.atomic().compares() ? d0 : d1;
        cx.line("    t_rc = rt_ds_atomic(&t_m, " + dsAddress(cx, f, offset) + ", " + c(a.atomic()) + ", " + operand + ", "
                + second + ", " + a.bytes() + ", &t_old, &t_fa);");
        cx.line("    " + (a.returns() == MemoryAccess.Returns.YES ? ATOMIC_DONE + writeData(cx, f.vdst(), a.bytes(), "t_old") + " }" : ATOMIC_DONE + "}"));
        cx.line("}");
        close(cx);
    }

    /** Gathers DATA (or ADDR) of every source lane first, then writes the active lanes. */
    private static void swizzle(InsnContext cx, Fields.Ds f, int pattern) {
        cx.line("uint32_t t_out[RT_LPT];");
        cx.line("RT_FOR_LANES(l) {");
        cx.line("    uint32_t t_s = rt_ds_swizzle_src((uint32_t)l, " + InsnContext.hex32(pattern) + ");");
        cx.line("    uint32_t t_v = RT_MEM_GATHER(" + regIndex(cx, f.addr()) + ", t_s);");
        cx.line("    t_out[RT_SLOT(l)] = ((RT_EXEC >> t_s) & 1u) ? t_v : 0u;");
        cx.line("}");
        cx.line("RT_FOR_ACTIVE(l) " + cx.vreg(f.vdst(), "l") + " = t_out[RT_SLOT(l)];");
    }

    private static void bpermute(InsnContext cx, Fields.Ds f, int offset) {
        cx.line("uint32_t t_out[RT_LPT];");
        cx.line("RT_FOR_LANES(l) {");
        cx.line("    uint32_t t_s = rt_ds_permute_lane(" + cx.vreg(f.addr(), "l") + ", " + InsnContext.hex32(offset)
                + ", (uint32_t)l, RT_WAVE);");
        cx.line("    uint32_t t_v = RT_MEM_GATHER(" + regIndex(cx, f.data0()) + ", t_s);");
        cx.line("    t_out[RT_SLOT(l)] = ((RT_EXEC >> t_s) & 1u) ? t_v : 0u;");
        cx.line("}");
        cx.line("RT_FOR_ACTIVE(l) " + cx.vreg(f.vdst(), "l") + " = t_out[RT_SLOT(l)];");
    }

    /** Forward permute: each destination lane takes DATA0 of the highest active lane that names it, else 0. */
    private static void permute(InsnContext cx, Fields.Ds f, int offset) {
        cx.line("uint32_t t_out[RT_LPT];");
        cx.line("RT_FOR_LANES(l) t_out[RT_SLOT(l)] = 0u;");
        cx.line("for (uint32_t t_k = 0; t_k < RT_WAVE; t_k++) {");
        cx.line("    uint32_t t_ka = RT_MEM_GATHER(" + regIndex(cx, f.addr()) + ", t_k);");
        cx.line("    uint32_t t_kd = RT_MEM_GATHER(" + regIndex(cx, f.data0()) + ", t_k);");
        cx.line("    uint32_t t_to = rt_ds_permute_lane(t_ka, " + InsnContext.hex32(offset) + ", t_k, RT_WAVE);");
        cx.line("    if ((RT_EXEC >> t_k) & 1u) { RT_FOR_LANES(l) if ((uint32_t)l == t_to) t_out[RT_SLOT(l)] = t_kd; }");
        cx.line("}");
        cx.line("RT_FOR_ACTIVE(l) " + cx.vreg(f.vdst(), "l") + " = t_out[RT_SLOT(l)];");
    }

    /** A VGPR number for RT_MEM_GATHER (checked against the allocation through the context). */
    private static String regIndex(InsnContext cx, int reg) {
        String v = cx.vreg(reg, "0");
        return v.substring(2, v.indexOf(','));
    }

    /** ds_append / ds_consume: the counter at M0[15:0] + OFFSET changes by the active lanes, once; each active lane gets the old value. */
    private static void appendConsume(InsnContext cx, Fields.Ds f, int offset, boolean append) {
        cx.line("if (RT_EXEC != 0) {");
        cx.line("    rt_mem_t t_m = rt_mem_of(C);");
        cx.line("    uint64_t t_old = 0, t_fa = 0;");
        cx.line("    uint32_t t_n = (uint32_t)rt_popc64(RT_EXEC);");
        cx.line("    int t_rc = rt_ds_wave_atomic(&t_m, (RT_M0 & 0xffffu) + " + InsnContext.hex32(offset) + ", RT_AOP_ADD, "
                + (append ? "t_n" : "0u - t_n") + ", &t_old, &t_fa);");
        cx.line("    if (t_rc) " + cx.fault("rt_mem_fault_code(t_rc)", "-1", "t_fa"));
        cx.line("    else RT_FOR_ACTIVE(l) " + cx.vreg(f.vdst(), "l") + " = (uint32_t)t_old;");
        cx.line("}");
        cx.line("RT_SYNC_WAVE();");
        cx.line(cx.check());
    }

    /** ds_read_addtid_b32 / ds_write_addtid_b32: LDS address M0[15:0] + OFFSET + lane * 4. */
    private static void addtid(InsnContext cx, Fields.Ds f, int offset, boolean read) {
        cx.line("rt_mem_t t_m = rt_mem_of(C);");
        cx.line("RT_FOR_ACTIVE(l) {");
        cx.line("    uint8_t t_b[4];");
        String a = "(RT_M0 & 0xffffu) + " + InsnContext.hex32(offset) + " + 4u * (uint32_t)l";
        if (read) {
            cx.line("    rt_ds_load(&t_m, " + a + ", 4, t_b);");
            cx.line("    " + cx.vreg(f.vdst(), "l") + " = rt_mem_dword(t_b, 0);");
        } else {
            cx.line("    rt_mem_put_dword(t_b, 0, " + cx.vreg(f.data0(), "l") + ");");
            cx.line("    rt_ds_store(&t_m, " + a + ", 4, t_b);");
        }
        cx.line("}");
        cx.line("RT_SYNC_WAVE();");
    }

    // ------------------------------------------------------------------ FLAT, GLOBAL, SCRATCH

    private static void flat(InsnContext cx) throws Refusal {
        Fields.Flat f = cx.fields(Fields.Flat.class);
        String m = cx.mnemonic();
        if (f.lds()) {
            faultNow(cx, m + " with the LDS bit (load into LDS): not executed by a replay (the host model faults alike)");
            return;
        }
        Encoding e = cx.encoding();
        long offset = FlatOffset.of(e, f.offset());
        MemoryAccess a = cx.opcode().memory();
        boolean addtid = a.addtid();
        if (a.kind() == MemoryAccess.Kind.OTHER) {
            throw cx.refuse("no translation of " + m);
        }
        // the lane's address: a 64-bit guest/FLAT address, or (SCRATCH) a 32-bit private offset
        String address;
        if (e == Encoding.SCRATCH) {
            String base = f.saddr() == SADDR_OFF ? cx.vreg(f.addr(), "l") : f.saddr() == 0x7f ? "0u" : cx.sreg(f.saddr());
            address = "(uint32_t)(" + base + " + " + InsnContext.hex32(offset) + ")";
        } else if (addtid) {
            String base = f.saddr() == SADDR_OFF ? "0ull" : saddr64(cx, f.saddr());
            address = base + " + " + InsnContext.hex64(offset) + " + 4ull * (uint64_t)l";
        } else if (e == Encoding.GLOBAL && f.saddr() != SADDR_OFF) {
            address = saddr64(cx, f.saddr()) + " + (uint64_t)" + cx.vreg(f.addr(), "l") + " + " + InsnContext.hex64(offset);
        } else {
            address = cx.vreg64(f.addr(), "l") + " + " + InsnContext.hex64(offset);
        }
        open(cx);
        cx.line(a.isAtomic() ? IN_ORDER : "RT_FOR_ACTIVE(l) {");
        cx.line((e == Encoding.SCRATCH ? "    uint32_t" : "    uint64_t") + " t_a = " + address + ";");
        String access = switch (e) {
            case SCRATCH -> "private";
            case GLOBAL -> "global";
            default -> "flat";
        };
        switch (a.kind()) {
            case LOAD -> {
                cx.line("    uint8_t t_b[16];");
                cx.line("    t_rc = " + call(access, "load", a.bytes(), "t_b") + ";");
                cx.line("    " + FAILED);
                writeLoaded(cx, f.vdst(), a);
            }
            case STORE -> {
                cx.line("    uint8_t t_b[16];");
                storeBytes(cx, f.data(), a, "t_b");
                cx.line("    t_rc = " + call(access, "store", a.bytes(), "t_b") + ";");
                cx.line("    " + FAILED);
            }
            default -> {
                cx.line("    uint64_t t_old = 0;");
                String cmp = a.atomic().compares() ? data(cx, f.data() + a.bytes() / 4, a.bytes()) : "0";
                String args = c(a.atomic()) + ", " + data(cx, f.data(), a.bytes()) + ", " + cmp + ", " + a.bytes()
                        + ", &t_old, &t_fa";
                String callText = switch (access) {
                    case "private" -> "rt_mem_private_atomic(&t_m, W->flat_scratch, t_a, (uint32_t)l, RT_WAVE, " + args + ")";
                    case "global" -> "rt_mem_global_atomic(&t_m, t_a, " + args + ")";
                    default -> "rt_flat_atomic(&t_m, t_a, W->flat_scratch, (uint32_t)l, RT_WAVE, " + args + ")";
                };
                cx.line("    t_rc = " + callText + ";");
                cx.line("    " + ATOMIC_DONE + (f.glc() ? writeData(cx, f.vdst(), a.bytes(), "t_old") + " " : "") + "}");
            }
        }
        cx.line("}");
        close(cx);
    }

    /** The 64-bit SGPR pair a GLOBAL SADDR names (an odd code names the pair below, as llvm-objdump-19 prints it). */
    private static String saddr64(InsnContext cx, int saddr) throws Refusal {
        return cx.src64(saddr & ~1, false);
    }

    private static String call(String access, String what, int bytes, String buf) {
        return switch (access) {
            case "private" -> "rt_mem_private_" + what + "(&t_m, W->flat_scratch, t_a, " + bytes + ", (uint32_t)l, RT_WAVE, "
                    + buf + ", &t_fa)";
            case "global" -> "rt_mem_global_" + what + "(&t_m, t_a, " + bytes + ", " + buf + ", &t_fa)";
            default -> "rt_flat_" + what + "(&t_m, t_a, " + bytes + ", W->flat_scratch, (uint32_t)l, RT_WAVE, " + buf
                    + ", &t_fa)";
        };
    }

    // ------------------------------------------------------------------ MUBUF (non-format)

    private static void mubuf(InsnContext cx) throws Refusal {
        Fields.Mubuf f = cx.fields(Fields.Mubuf.class);
        String m = cx.mnemonic();
        MemoryAccess a = cx.opcode().memory();
        if (a.format()) {
            throw cx.refuse("formatted buffer accesses are the image unit's");
        }
        if (a.kind() == MemoryAccess.Kind.OTHER) {
            cx.line("/* cache invalidation: no effect on a replay that keeps no caches */");
            return;
        }
        if (f.lds()) {
            faultNow(cx, m + " with the LDS bit (load into LDS): not executed by a replay (the host model faults alike)");
            return;
        }
        int r = f.srsrc();
        cx.line("rt_vsharp_t t_v = rt_buf_vsharp(" + cx.sreg(r) + ", " + cx.sreg(r + 1) + ", " + cx.sreg(r + 2) + ", "
                + cx.sreg(r + 3) + ");");
        cx.line("uint32_t t_so = " + cx.src32(f.soffset()) + ";");
        open(cx);
        String v0 = f.idxen() || f.offen() ? cx.vreg(f.vaddr(), "l") : "0u";
        String v1 = f.idxen() && f.offen() ? cx.vreg(f.vaddr() + 1, "l") : "0u";
        cx.line(a.isAtomic() ? IN_ORDER : "RT_FOR_ACTIVE(l) {");
        cx.line("    rt_buf_lane_t t_l = rt_buf_lane(&t_v, " + (f.idxen() ? 1 : 0) + ", " + (f.offen() ? 1 : 0) + ", " + v0
                + ", " + v1 + ", " + InsnContext.hex32(f.offset()) + ", t_so, (uint32_t)l);");
        switch (a.kind()) {
            case LOAD -> {
                cx.line("    uint8_t t_b[16];");
                cx.line("    t_rc = rt_buf_load(&t_m, &t_v, &t_l, " + a.bytes() + ", t_b, &t_fa);");
                cx.line("    " + FAILED);
                writeLoaded(cx, f.vdata(), a);
                if (f.tfe()) {
                    cx.line("    " + cx.vreg(f.vdata() + a.dwords(), "l") + " = 0u; /* TFE: no texture fault */");
                }
            }
            case STORE -> {
                cx.line("    uint8_t t_b[16];");
                storeBytes(cx, f.vdata(), a, "t_b");
                cx.line("    t_rc = rt_buf_store(&t_m, &t_v, &t_l, " + a.bytes() + ", t_b, &t_fa);");
                cx.line("    " + FAILED);
            }
            default -> {
                String cmp = a.atomic().compares() ? data(cx, f.vdata() + a.bytes() / 4, a.bytes()) : "0";
                cx.line("    uint64_t t_old = 0;");
                cx.line("    t_rc = rt_buf_atomic(&t_m, &t_v, &t_l, " + c(a.atomic()) + ", " + data(cx, f.vdata(), a.bytes())
                        + ", " + cmp + ", " + a.bytes() + ", &t_old, &t_fa);");
                cx.line("    " + ATOMIC_DONE + (f.glc() ? writeData(cx, f.vdata(), a.bytes(), "t_old") + " " : "") + "}");
            }
        }
        cx.line("}");
        close(cx);
    }
}
