package org.replayfarm.model.isa;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Decodes gfx1030 machine code. The encoding is told by the top bits of the first dword; the opcode
 * field is looked up in the encoding's table, and an opcode the table does not hold is an error naming
 * the PC and the bytes. This is the only place that takes instruction words apart.
 */
public final class Decoder {
    /** A source operand code that means "a 32-bit literal follows the instruction". */
    public static final int LITERAL = 255;

    private final OpcodeTable table;

    public Decoder(OpcodeTable table) {
        this.table = table;
    }

    public static Decoder gfx1030() {
        return new Decoder(OpcodeTable.gfx1030());
    }

    /** Tells the encoding from the first dword, or null when no gfx1030 encoding starts like it. */
    public static Encoding encodingOf(int w) {
        int top9 = w >>> 23;
        if (top9 == 0x17D) {
            return Encoding.SOP1;
        } else if (top9 == 0x17E) {
            return Encoding.SOPC;
        } else if (top9 == 0x17F) {
            return Encoding.SOPP;
        } else if (w >>> 28 == 0xB) {
            return Encoding.SOPK;
        } else if (w >>> 30 == 0b10) {
            return Encoding.SOP2;
        } else if (w >>> 25 == 0x3F) {
            return Encoding.VOP1;
        } else if (w >>> 25 == 0x3E) {
            return Encoding.VOPC;
        } else if (w >>> 31 == 0) {
            return Encoding.VOP2;
        }
        return switch (w >>> 26) {
            case 0x3D -> Encoding.SMEM;
            case 0x35 -> Encoding.VOP3;
            case 0x33 -> Encoding.VOP3P;
            case 0x36 -> Encoding.DS;
            case 0x38 -> Encoding.MUBUF;
            case 0x3A -> Encoding.MTBUF;
            case 0x3C -> Encoding.MIMG;
            case 0x37 -> switch ((w >>> 14) & 3) {
                case 0 -> Encoding.FLAT;
                case 1 -> Encoding.SCRATCH;
                case 2 -> Encoding.GLOBAL;
                default -> null;
            };
            case 0x3E -> Encoding.EXP;
            case 0x32 -> Encoding.VINTRP;
            default -> null;
        };
    }

    /** The opcode number of a first dword in its encoding (for MUBUF and MIMG with the extra top bit). */
    static int opcodeOf(Encoding e, int w, int w1) {
        return switch (e) {
            case SOP1 -> (w >>> 8) & 0xFF;
            case SOP2 -> (w >>> 23) & 0x7F;
            case SOPK -> (w >>> 23) & 0x1F;
            case SOPC, SOPP -> (w >>> 16) & 0x7F;
            case SMEM -> (w >>> 18) & 0xFF;
            case VOP1 -> (w >>> 9) & 0xFF;
            case VOP2 -> (w >>> 25) & 0x3F;
            case VOPC -> (w >>> 17) & 0xFF;
            case VOP3 -> (w >>> 16) & 0x3FF;
            case VOP3P -> (w >>> 16) & 0x7F;
            case DS -> (w >>> 18) & 0xFF;
            case MUBUF -> ((w >>> 18) & 0x7F) | ((w >>> 25) & 1) << 7;
            case MTBUF -> ((w >>> 16) & 0x7) | ((w1 >>> 21) & 1) << 3;
            case MIMG -> ((w >>> 18) & 0x7F) | (w & 1) << 7;
            case FLAT, GLOBAL, SCRATCH -> (w >>> 18) & 0x7F;
            case EXP -> 0;
            case VINTRP -> (w >>> 16) & 0x3;
        };
    }

    /** Decodes the instruction at {@code offset} of {@code code}, whose first byte is at guest address {@code base}. */
    public Instruction decode(ByteBuffer code, int offset, long base) throws DecodeException {
        ByteBuffer b = code.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        long pc = base + offset;
        int available = b.limit() - offset;
        if (available < 4) {
            throw new DecodeException(pc, bytes(b, offset, Math.max(0, available)), "truncated: no complete dword");
        }
        int w0 = b.getInt(offset);
        Encoding e = encodingOf(w0);
        if (e == null) {
            throw new DecodeException(pc, bytes(b, offset, 4), "no gfx1030 encoding starts with these bits");
        }
        if (available < e.baseBytes()) {
            throw new DecodeException(pc, bytes(b, offset, available), "truncated " + e + " instruction ("
                    + e.baseBytes() + " bytes, " + available + " left)");
        }
        int w1 = e.baseBytes() == 8 ? b.getInt(offset + 4) : 0;
        int code32 = opcodeOf(e, w0, w1);
        Opcode op = table.lookup(e, code32);
        if (op == null) {
            throw new DecodeException(pc, bytes(b, offset, e.baseBytes()), "unknown or reserved " + e + " opcode " + code32);
        }
        List<Integer> words = new ArrayList<>();
        words.add(w0);
        if (e.baseBytes() == 8) {
            words.add(w1);
        }
        int next = offset + e.baseBytes();
        // the DPP or SDWA dword of a VOP1/VOP2/VOPC comes before any literal
        int src0 = w0 & 0x1FF;
        boolean valuShort = e == Encoding.VOP1 || e == Encoding.VOP2 || e == Encoding.VOPC;
        ValuVariant variant = new ValuVariant.None();
        if (valuShort && ValuShortVariants.takesWord(op, src0, b.limit() - next >= 4 ? b.getInt(next) : null)) {
            int x = word(b, next, pc, offset, op);
            words.add(x);
            next += 4;
            variant = variant(src0, x, e);
        }
        Fields fields = fields(e, w0, w1, variant);
        if (fields instanceof Fields.Mimg m && m.nsaDwords() > 0) {
            List<Integer> nsa = new ArrayList<>();
            for (int i = 0; i < m.nsaDwords(); i++) {
                int x = word(b, next, pc, offset, op);
                words.add(x);
                next += 4;
                for (int k = 0; k < 4; k++) {
                    nsa.add((x >>> (8 * k)) & 0xFF);
                }
            }
            fields = new Fields.Mimg(m.nsaDwords(), m.dim(), m.dlc(), m.dmask(), m.unorm(), m.glc(), m.r128(), m.tfe(),
                    m.lwe(), m.slc(), m.vaddr(), m.vdata(), m.srsrc(), m.ssamp(), m.a16(), m.d16(), nsa);
        }
        OptionalInt literal = OptionalInt.empty();
        if (needsLiteral(op, fields)) {
            int x = word(b, next, pc, offset, op);
            words.add(x);
            literal = OptionalInt.of(x);
        }
        return new Instruction(pc, op, fields, words, literal);
    }

    private static int word(ByteBuffer b, int at, long pc, int start, Opcode op) throws DecodeException {
        if (b.limit() - at < 4) {
            throw new DecodeException(pc, bytes(b, start, b.limit() - start), "truncated " + op.mnemonic()
                    + ": its next dword is missing");
        }
        return b.getInt(at);
    }

    private static boolean needsLiteral(Opcode op, Fields f) {
        if (op.has(OpcodeFlag.LITERAL)) {
            return true;
        }
        if (f instanceof Fields.Sop1 s) {
            return s.ssrc0() == LITERAL && op.operandType("ssrc0") != null;
        } else if (f instanceof Fields.Sop2 s) {
            return s.ssrc0() == LITERAL || s.ssrc1() == LITERAL;
        } else if (f instanceof Fields.Sopc s) {
            return s.ssrc0() == LITERAL || s.ssrc1() == LITERAL;
        } else if (f instanceof Fields.Vop1 v) {
            // v_readfirstlane's scalar destination field decodes like a source: 255 takes a literal too
            return v.src0() == LITERAL && op.operandType("src0") != null
                    || v.vdst() == LITERAL && op.operandType("sdst") != null;
        } else if (f instanceof Fields.Vop2 v) {
            return v.src0() == LITERAL;
        } else if (f instanceof Fields.Vopc v) {
            return v.src0() == LITERAL;
        } else if (f instanceof Fields.Vop3 v) {
            return usesLiteral(op, v.src0(), v.src1(), v.src2());
        } else if (f instanceof Fields.Vop3p v) {
            return usesLiteral(op, v.src0(), v.src1(), v.src2());
        } else if (f instanceof Fields.Mubuf m) {
            return m.soffset() == LITERAL && op.operandType("soffset") != null;
        } else if (f instanceof Fields.Mtbuf m) {
            return m.soffset() == LITERAL && op.operandType("soffset") != null;
        }
        return false;
    }

    private static boolean usesLiteral(Opcode op, int src0, int src1, int src2) {
        int n = op.sourceCount();
        return n > 0 && src0 == LITERAL || n > 1 && src1 == LITERAL || n > 2 && src2 == LITERAL;
    }

    private static ValuVariant variant(int src0, int x, Encoding e) {
        if (src0 == ValuVariant.SRC_DPP16) {
            return new ValuVariant.Dpp16(x & 0xFF, (x >>> 8) & 0x1FF, bit(x, 18), bit(x, 19), bit(x, 20), bit(x, 21),
                    bit(x, 22), bit(x, 23), (x >>> 24) & 0xF, (x >>> 28) & 0xF);
        }
        if (src0 == ValuVariant.SRC_DPP8 || src0 == ValuVariant.SRC_DPP8_FI) {
            List<Integer> sel = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                sel.add((x >>> (8 + 3 * i)) & 7);
            }
            return new ValuVariant.Dpp8(x & 0xFF, sel, src0 == ValuVariant.SRC_DPP8_FI);
        }
        boolean vopc = e == Encoding.VOPC;
        return new ValuVariant.Sdwa(x & 0xFF, bit(x, 23), (x >>> 8) & 7, (x >>> 11) & 3, !vopc && bit(x, 13),
                vopc ? 0 : (x >>> 14) & 3, vopc ? (x >>> 8) & 0x7F : -1, vopc && bit(x, 15), (x >>> 16) & 7,
                bit(x, 19), bit(x, 20), bit(x, 21), (x >>> 24) & 7, bit(x, 27), bit(x, 28), bit(x, 29), bit(x, 31));
    }

    private static Fields fields(Encoding e, int w, int w1, ValuVariant variant) {
        return switch (e) {
            case SOP1 -> new Fields.Sop1((w >>> 16) & 0x7F, w & 0xFF);
            case SOP2 -> new Fields.Sop2((w >>> 16) & 0x7F, w & 0xFF, (w >>> 8) & 0xFF);
            case SOPK -> new Fields.Sopk((w >>> 16) & 0x7F, w & 0xFFFF);
            case SOPC -> new Fields.Sopc(w & 0xFF, (w >>> 8) & 0xFF);
            case SOPP -> new Fields.Sopp(w & 0xFFFF);
            case SMEM -> new Fields.Smem((w & 0x3F) << 1, (w >>> 6) & 0x7F, bit(w, 16), bit(w, 14),
                    (w1 << 11) >> 11, (w1 >>> 25) & 0x7F);
            case VOP1 -> new Fields.Vop1((w >>> 17) & 0xFF, w & 0x1FF, variant);
            case VOP2 -> new Fields.Vop2((w >>> 17) & 0xFF, w & 0x1FF, (w >>> 9) & 0xFF, variant);
            case VOPC -> new Fields.Vopc(w & 0x1FF, (w >>> 9) & 0xFF, variant);
            case VOP3 -> new Fields.Vop3(w & 0xFF, (w >>> 8) & 0x7F, (w >>> 8) & 7, (w >>> 11) & 0xF, bit(w, 15),
                    w1 & 0x1FF, (w1 >>> 9) & 0x1FF, (w1 >>> 18) & 0x1FF, (w1 >>> 27) & 3, (w1 >>> 29) & 7);
            case VOP3P -> new Fields.Vop3p(w & 0xFF, (w >>> 8) & 7, (w >>> 11) & 7,
                    ((w >>> 14) & 1) << 2 | ((w1 >>> 27) & 3), bit(w, 15), w1 & 0x1FF, (w1 >>> 9) & 0x1FF,
                    (w1 >>> 18) & 0x1FF, (w1 >>> 29) & 7);
            case DS -> new Fields.Ds(w & 0xFF, (w >>> 8) & 0xFF, bit(w, 17), w1 & 0xFF, (w1 >>> 8) & 0xFF,
                    (w1 >>> 16) & 0xFF, (w1 >>> 24) & 0xFF);
            case MUBUF -> new Fields.Mubuf(w & 0xFFF, bit(w, 12), bit(w, 13), bit(w, 14), bit(w, 15), bit(w, 16),
                    w1 & 0xFF, (w1 >>> 8) & 0xFF, ((w1 >>> 16) & 0x1F) << 2, bit(w1, 22), bit(w1, 23), (w1 >>> 24) & 0xFF);
            case MTBUF -> new Fields.Mtbuf(w & 0xFFF, bit(w, 12), bit(w, 13), bit(w, 14), bit(w, 15), (w >>> 19) & 0x7F,
                    w1 & 0xFF, (w1 >>> 8) & 0xFF, ((w1 >>> 16) & 0x1F) << 2, bit(w1, 22), bit(w1, 23), (w1 >>> 24) & 0xFF);
            case MIMG -> new Fields.Mimg((w >>> 1) & 3, (w >>> 3) & 7, bit(w, 7), (w >>> 8) & 0xF, bit(w, 12), bit(w, 13),
                    bit(w, 15), bit(w, 16), bit(w, 17), bit(w, 25), w1 & 0xFF, (w1 >>> 8) & 0xFF,
                    ((w1 >>> 16) & 0x1F) << 2, ((w1 >>> 21) & 0x1F) << 2, bit(w1, 30), bit(w1, 31), List.of());
            case FLAT, GLOBAL, SCRATCH -> new Fields.Flat(w & 0xFFF, bit(w, 12), bit(w, 13), (w >>> 14) & 3, bit(w, 16),
                    bit(w, 17), w1 & 0xFF, (w1 >>> 8) & 0xFF, (w1 >>> 16) & 0x7F, bit(w1, 23), (w1 >>> 24) & 0xFF);
            case EXP -> new Fields.Exp(w & 0xF, (w >>> 4) & 0x3F, bit(w, 10), bit(w, 11), bit(w, 12), w1 & 0xFF,
                    (w1 >>> 8) & 0xFF, (w1 >>> 16) & 0xFF, (w1 >>> 24) & 0xFF);
            case VINTRP -> new Fields.Vintrp(w & 0xFF, (w >>> 8) & 3, (w >>> 10) & 0x3F, (w >>> 18) & 0xFF);
        };
    }

    private static boolean bit(int w, int n) {
        return ((w >>> n) & 1) != 0;
    }

    private static byte[] bytes(ByteBuffer b, int offset, int length) {
        byte[] out = new byte[Math.max(0, length)];
        b.get(offset, out);
        return out;
    }
}
