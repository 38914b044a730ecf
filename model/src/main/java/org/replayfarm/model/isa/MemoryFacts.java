package org.replayfarm.model.isa;

import java.util.List;
import org.replayfarm.model.isa.MemoryAccess.Half;
import org.replayfarm.model.isa.MemoryAccess.Kind;
import org.replayfarm.model.isa.MemoryAccess.Pair;
import org.replayfarm.model.isa.MemoryAccess.Returns;

/**
 * Derives a memory row's {@link MemoryAccess} from its mnemonic, by the ISA's naming rules, once when the
 * table loads (the only place a mnemonic is parsed for what it does), and checks the result against the
 * row's own operand widths and load/store/atomic flag. A memory row it cannot read fails the load.
 *
 * <p>Naming rules (RDNA 2 ISA, the memory chapters): a width suffix ubyte/sbyte/ushort/sshort/byte/short/
 * dword/dwordxN (FLAT, GLOBAL, SCRATCH, MUBUF, SMEM) or u8/i8/u16/i16/b8/b16/b32/b64/b96/b128 (DS), an s/i
 * prefix meaning sign extension; _d16 the low half of the VGPR, _d16_hi the high half; atomics
 * *_atomic_OP[_x2] (x2: 64 bits) and ds_OP[_rtn]_TYPE (rtn: returns; TYPE's digits the width, its letter the
 * signedness or float); read2/write2/wrxchg2 two elements, st64 offsets in units of 64 elements;
 * *_format_[d16_[hi_]]COMPONENTS the format conversions.
 */
final class MemoryFacts {
    private MemoryFacts() {
    }

    static boolean isMemory(Encoding e) {
        return switch (e) {
            case DS, FLAT, GLOBAL, SCRATCH, MUBUF, MTBUF, SMEM, MIMG -> true;
            default -> false;
        };
    }

    /** The facts of a memory encoding's row, or null for other encodings. */
    static MemoryAccess derive(Encoding e, String m) {
        return switch (e) {
            case DS -> ds(m);
            case FLAT -> vector(m, "flat_");
            case GLOBAL -> vector(m, "global_");
            case SCRATCH -> vector(m, "scratch_");
            case MUBUF -> mubuf(m);
            case MTBUF -> format(m, "tbuffer_");
            case SMEM -> smem(m);
            case MIMG -> mimg(m);
            default -> null;
        };
    }

    private static IllegalArgumentException unknown(String m) {
        return new IllegalArgumentException("cannot read the memory access of " + m + " (no naming rule fits)");
    }

    private static String after(String m, String prefix) {
        if (!m.startsWith(prefix)) {
            throw unknown(m);
        }
        return m.substring(prefix.length());
    }

    /** A FLAT/GLOBAL/SCRATCH/MUBUF width suffix or a DS one. */
    static MemoryAccess width(Kind kind, String suffix, String m) {
        return switch (suffix) {
            case "ubyte", "byte", "u8", "b8" -> MemoryAccess.plain(kind, 1, false, Half.NONE);
            case "sbyte", "i8" -> MemoryAccess.plain(kind, 1, true, Half.NONE);
            case "ushort", "short", "u16", "b16" -> MemoryAccess.plain(kind, 2, false, Half.NONE);
            case "sshort", "i16" -> MemoryAccess.plain(kind, 2, true, Half.NONE);
            case "dword", "b32" -> MemoryAccess.plain(kind, 4, false, Half.NONE);
            case "dwordx2", "b64" -> MemoryAccess.plain(kind, 8, false, Half.NONE);
            case "dwordx3", "b96" -> MemoryAccess.plain(kind, 12, false, Half.NONE);
            case "dwordx4", "b128" -> MemoryAccess.plain(kind, 16, false, Half.NONE);
            case "dwordx8" -> MemoryAccess.plain(kind, 32, false, Half.NONE);
            case "dwordx16" -> MemoryAccess.plain(kind, 64, false, Half.NONE);
            case "ubyte_d16", "u8_d16" -> MemoryAccess.plain(kind, 1, false, Half.LOW);
            case "ubyte_d16_hi", "u8_d16_hi", "byte_d16_hi", "b8_d16_hi" -> MemoryAccess.plain(kind, 1, false, Half.HIGH);
            case "sbyte_d16", "i8_d16" -> MemoryAccess.plain(kind, 1, true, Half.LOW);
            case "sbyte_d16_hi", "i8_d16_hi" -> MemoryAccess.plain(kind, 1, true, Half.HIGH);
            case "short_d16", "u16_d16" -> MemoryAccess.plain(kind, 2, false, Half.LOW);
            case "short_d16_hi", "u16_d16_hi", "b16_d16_hi" -> MemoryAccess.plain(kind, 2, false, Half.HIGH);
            default -> throw unknown(m);
        };
    }

    private static MemoryAccess addtid(Kind kind) {
        return new MemoryAccess(kind, 4, false, Half.NONE, null, Returns.NO, null, false, 0, true);
    }

    private static MemoryAccess vector(String m, String prefix) {
        String rest = after(m, prefix);
        if (rest.equals("load_dword_addtid")) {
            return addtid(Kind.LOAD);
        }
        if (rest.equals("store_dword_addtid")) {
            return addtid(Kind.STORE);
        }
        return loadStoreAtomic(rest, m);
    }

    /** load_WIDTH, store_WIDTH or atomic_OP[_x2] after a FLAT/GLOBAL/SCRATCH/MUBUF prefix. */
    private static MemoryAccess loadStoreAtomic(String rest, String m) {
        if (rest.startsWith("load_")) {
            return width(Kind.LOAD, rest.substring(5), m);
        }
        if (rest.startsWith("store_")) {
            return width(Kind.STORE, rest.substring(6), m);
        }
        if (rest.startsWith("atomic_")) {
            return vectorAtomic(rest.substring(7), m);
        }
        throw unknown(m);
    }

    /** OP or OP_x2 of FLAT/GLOBAL/MUBUF atomics. */
    private static MemoryAccess vectorAtomic(String name, String m) {
        boolean wide = name.endsWith("_x2");
        AtomicOp op = AtomicOp.ofVectorName(wide ? name.substring(0, name.length() - 3) : name);
        if (op == null) {
            throw unknown(m);
        }
        return MemoryAccess.atomic(op, wide ? 8 : 4, Returns.IF_GLC);
    }

    private static MemoryAccess mubuf(String m) {
        if (m.equals("buffer_gl0_inv") || m.equals("buffer_gl1_inv")) {
            return MemoryAccess.OTHER;
        }
        if (m.startsWith("buffer_load_format_") || m.startsWith("buffer_store_format_")) {
            return format(m, "buffer_");
        }
        String rest = after(m, "buffer_");
        return loadStoreAtomic(rest, m);
    }

    /** PREFIX(load|store)_format_[d16_[hi_]]COMPONENTS. */
    private static MemoryAccess format(String m, String prefix) {
        String rest = after(m, prefix);
        Kind kind;
        if (rest.startsWith("load_format_")) {
            kind = Kind.LOAD;
            rest = rest.substring("load_format_".length());
        } else if (rest.startsWith("store_format_")) {
            kind = Kind.STORE;
            rest = rest.substring("store_format_".length());
        } else {
            throw unknown(m);
        }
        Half half = Half.NONE;
        if (rest.startsWith("d16_hi_")) {
            half = Half.HIGH;
            rest = rest.substring(7);
        } else if (rest.startsWith("d16_")) {
            half = Half.LOW;
            rest = rest.substring(4);
        }
        if (!List.of("x", "xy", "xyz", "xyzw").contains(rest) || half == Half.HIGH && !rest.equals("x")) {
            throw unknown(m);
        }
        return new MemoryAccess(kind, 0, false, half, null, Returns.NO, null, true, rest.length(), false);
    }

    private static MemoryAccess smem(String m) {
        String rest = m.startsWith("s_buffer_load_") ? m.substring("s_buffer_load_".length())
                : m.startsWith("s_load_") ? m.substring("s_load_".length()) : null;
        if (rest == null) {
            return switch (m) {
                case "s_gl1_inv", "s_dcache_inv", "s_memtime", "s_memrealtime", "s_atc_probe", "s_atc_probe_buffer" ->
                        MemoryAccess.OTHER;
                default -> throw unknown(m);
            };
        }
        return width(Kind.LOAD, rest, m);
    }

    private static MemoryAccess mimg(String m) {
        if (m.startsWith("image_atomic_")) {
            AtomicOp op = AtomicOp.ofVectorName(m.substring("image_atomic_".length()));
            if (op == null) {
                throw unknown(m);
            }
            return MemoryAccess.atomic(op, 0, Returns.IF_GLC);
        }
        if (m.startsWith("image_load") || m.equals("image_msaa_load")) {
            return MemoryAccess.plain(Kind.LOAD, 0, false, Half.NONE);
        }
        if (m.startsWith("image_store")) {
            return MemoryAccess.plain(Kind.STORE, 0, false, Half.NONE);
        }
        return MemoryAccess.OTHER;
    }

    private static MemoryAccess ds(String m) {
        String rest = after(m, "ds_");
        switch (rest) {
            case "read_addtid_b32":
                return addtid(Kind.LOAD);
            case "write_addtid_b32":
                return addtid(Kind.STORE);
            case "nop", "swizzle_b32", "permute_b32", "bpermute_b32", "append", "consume", "ordered_count":
                return MemoryAccess.OTHER;
            case "condxchg32_rtn_b64":
                return MemoryAccess.atomic(AtomicOp.CONDXCHG32, 8, Returns.YES);
            default:
                break;
        }
        if (rest.startsWith("gws_")) {
            return MemoryAccess.OTHER;
        }
        for (String form : new String[] {"read2st64_", "read2_", "write2st64_", "write2_", "wrxchg2st64_rtn_",
                "wrxchg2_rtn_"}) {
            if (rest.startsWith(form)) {
                String type = rest.substring(form.length());
                int size = switch (type) {
                    case "b32" -> 4;
                    case "b64" -> 8;
                    default -> throw unknown(m);
                };
                Pair pair = new Pair(size, size * (form.contains("st64") ? 64 : 1));
                Kind kind = form.startsWith("read") ? Kind.LOAD : form.startsWith("write") ? Kind.STORE : Kind.ATOMIC;
                return new MemoryAccess(kind, size, false, Half.NONE, kind == Kind.ATOMIC ? AtomicOp.SWAP : null,
                        kind == Kind.ATOMIC ? Returns.YES : Returns.NO, pair, false, 0, false);
            }
        }
        if (rest.startsWith("read_")) {
            return width(Kind.LOAD, rest.substring(5), m);
        }
        if (rest.startsWith("write_")) {
            return width(Kind.STORE, rest.substring(6), m);
        }
        // ds_OP[_rtn]_TYPE
        boolean rtn = rest.contains("_rtn_");
        String stem = rest.replace("_rtn", "");
        int cut = stem.lastIndexOf('_');
        if (cut < 0) {
            throw unknown(m);
        }
        String name = stem.substring(0, cut);
        String type = stem.substring(cut + 1);
        int bytes = switch (type.substring(1)) {
            case "32" -> 4;
            case "64" -> 8;
            default -> throw unknown(m);
        };
        char t = type.charAt(0);
        AtomicOp op = switch (name) {
            case "min" -> t == 'i' ? AtomicOp.SMIN : t == 'u' ? AtomicOp.UMIN : AtomicOp.FMIN;
            case "max" -> t == 'i' ? AtomicOp.SMAX : t == 'u' ? AtomicOp.UMAX : AtomicOp.FMAX;
            case "add" -> t == 'f' ? AtomicOp.FADD : AtomicOp.ADD;
            case "cmpst" -> t == 'f' ? AtomicOp.FCMPSWAP : AtomicOp.CMPSWAP;
            case "wrxchg" -> AtomicOp.SWAP;
            case "sub" -> AtomicOp.SUB;
            case "rsub" -> AtomicOp.RSUB;
            case "inc" -> AtomicOp.INC;
            case "dec" -> AtomicOp.DEC;
            case "and" -> AtomicOp.AND;
            case "or" -> AtomicOp.OR;
            case "xor" -> AtomicOp.XOR;
            case "mskor" -> AtomicOp.MSKOR;
            case "wrap" -> AtomicOp.WRAP;
            default -> throw unknown(m);
        };
        if ("iufb".indexOf(t) < 0) {
            throw unknown(m);
        }
        return MemoryAccess.atomic(op, bytes, rtn ? Returns.YES : Returns.NO);
    }

    // ---------------------------------------------------------------- checks against the row

    /**
     * Checks the derived facts against the row's operand widths and its load/store/atomic flag; returns a
     * complaint, or null when they agree.
     */
    static String disagreement(Opcode op) {
        MemoryAccess a = op.memory();
        Encoding e = op.encoding();
        if (e == Encoding.FLAT || e == Encoding.GLOBAL || e == Encoding.SCRATCH || e == Encoding.MUBUF
                || e == Encoding.MTBUF) {
            OpcodeFlag expected = switch (a.kind()) {
                case LOAD -> OpcodeFlag.LOAD;
                case STORE -> OpcodeFlag.STORE;
                case ATOMIC -> OpcodeFlag.ATOMIC;
                case OTHER -> null;
            };
            for (OpcodeFlag f : new OpcodeFlag[] {OpcodeFlag.LOAD, OpcodeFlag.STORE, OpcodeFlag.ATOMIC}) {
                if (op.has(f) != (f == expected)) {
                    return "the name says " + a.kind() + " but the row's flags are " + op.flagSet();
                }
            }
        }
        switch (e) {
            case FLAT, GLOBAL, SCRATCH -> {
                if (a.isLoad()) {
                    return registers(op, "vdst", a.dwords());
                }
                if (a.isStore()) {
                    return registers(op, "data", a.dwords());
                }
                String d = registers(op, "data", a.dwords() * (a.atomic().compares() ? 2 : 1));
                return d != null ? d : registers(op, "vdst", a.dwords());
            }
            case MUBUF, MTBUF -> {
                if (a.kind() == Kind.OTHER) {
                    return null;
                }
                int n = a.format() ? (a.d16() ? (a.components() + 1) / 2 : a.components())
                        : a.dwords() * (a.isAtomic() && a.atomic().compares() ? 2 : 1);
                return registers(op, "vdata", n);
            }
            case SMEM -> {
                return a.isLoad() ? registers(op, "sdata", a.dwords()) : null;
            }
            case DS -> {
                if (a.kind() == Kind.OTHER) {
                    return null;
                }
                int element = a.pair() != null ? a.pair().elementBytes() / 4 : a.dwords();
                int returned = a.pair() != null ? 2 * element : element;
                if (a.isLoad()) {
                    return registers(op, "vdst", returned);
                }
                String d = registers(op, "data0", element);
                if (d == null && (a.pair() != null || a.isAtomic() && a.atomic().secondOperand())) {
                    d = registers(op, "data1", element);
                }
                if (d == null && a.isAtomic()) {
                    d = a.returns() == Returns.YES ? registers(op, "vdst", a.atomic() == AtomicOp.CONDXCHG32 ? 2 : returned)
                            : op.operandType("vdst") != null ? "a non-returning atomic with a vdst operand" : null;
                }
                return d;
            }
            default -> {
                return null;
            }
        }
    }

    private static String registers(Opcode op, String name, int expected) {
        OperandSpec o = op.operand(name);
        if (o == null) {
            return "no " + name + " operand (the name says " + expected + " registers)";
        }
        return o.registers() == expected ? null
                : "operand " + o.text() + " but the name says " + expected + " registers";
    }
}
