package org.replayfarm.model.isa;

import java.util.ArrayList;
import java.util.List;

/**
 * Prints DS, MUBUF, MTBUF, FLAT, GLOBAL and SCRATCH instructions exactly as llvm-objdump-19 does for gfx1030.
 * What each instruction prints, and how wide each register operand is, comes from its table row (see the
 * headers of DS.tsv, MUBUF.tsv, MTBUF.tsv, FLAT.tsv, GLOBAL.tsv and SCRATCH.tsv); this class only knows how
 * each operand type and modifier bit is spelled. The memory encodings spell operands the same in wave32 and
 * wave64. Fields that name no valid operand throw {@link IllegalArgumentException}.
 */
public final class MemoryPrinter {
    private MemoryPrinter() {
    }

    public static String print(Instruction insn, Syntax syntax) {
        Fields f = insn.fields();
        if (f instanceof Fields.Ds d) {
            return ds(insn.opcode(), d);
        } else if (f instanceof Fields.Mubuf m) {
            return mubuf(insn, m);
        } else if (f instanceof Fields.Mtbuf m) {
            return mtbuf(insn, m);
        } else if (f instanceof Fields.Flat m) {
            return flat(insn.opcode(), m);
        }
        throw new IllegalArgumentException(insn.encoding() + " is not a memory encoding (" + insn.mnemonic() + ")");
    }

    private static String ds(Opcode op, Fields.Ds d) {
        List<String> operands = new ArrayList<>();
        StringBuilder mods = new StringBuilder();
        int offset = d.offset1() << 8 | d.offset0();
        for (String operand : op.operands()) {
            String name = MemoryOperands.name(operand);
            String type = MemoryOperands.type(operand);
            int dwords = MemoryOperands.vgprDwords(type);
            if (dwords > 0) {
                int first = switch (name) {
                    case "vdst" -> d.vdst();
                    case "addr" -> d.addr();
                    case "data0" -> d.data0();
                    case "data1" -> d.data1();
                    default -> throw new IllegalStateException(op + ": DS has no field " + name);
                };
                operands.add(MemoryOperands.vgprs(first, dwords, op.mnemonic() + " " + name));
            } else if (type.equals("u16")) {
                if (offset != 0) {
                    mods.append(" offset:").append(offset);
                }
            } else if (type.equals("u8")) {
                int value = name.equals("offset0") ? d.offset0() : d.offset1();
                if (value != 0) {
                    mods.append(' ').append(name).append(':').append(value);
                }
            } else if (type.equals("swizzle")) {
                if (offset != 0) {
                    mods.append(" offset:").append(MemoryOperands.swizzle(offset));
                }
            } else {
                throw new IllegalStateException(op + ": unknown DS operand type " + type);
            }
        }
        if (d.gds()) {
            if (op.has(OpcodeFlag.NO_GDS)) {
                throw new IllegalArgumentException(op.mnemonic() + " cannot address GDS");
            }
            mods.append(" gds");
        } else if (op.has(OpcodeFlag.GDS_ONLY)) {
            throw new IllegalArgumentException(op.mnemonic() + " needs the GDS bit");
        }
        return join(op.mnemonic(), operands, mods);
    }

    private static String mubuf(Instruction insn, Fields.Mubuf m) {
        Opcode op = insn.opcode();
        if (op.operands().isEmpty()) {
            return op.mnemonic();
        }
        if (m.lds() && !op.has(OpcodeFlag.LDS)) {
            throw new IllegalArgumentException(op.mnemonic() + " cannot load to LDS");
        }
        StringBuilder mods = new StringBuilder();
        List<String> operands = buffer(insn, m.vdata(), m.vaddr(), m.offen(), m.idxen(), m.srsrc(), m.soffset(),
                m.tfe(), m.lds());
        addressModifiers(mods, m.idxen(), m.offen(), m.offset(), m.glc(), m.slc(), m.dlc());
        if (m.lds()) {
            mods.append(" lds");
        }
        if (m.tfe()) {
            mods.append(" tfe");
        }
        return join(op.mnemonic(), operands, mods);
    }

    private static String mtbuf(Instruction insn, Fields.Mtbuf m) {
        Opcode op = insn.opcode();
        StringBuilder mods = new StringBuilder(MemoryOperands.format(m.format()));
        List<String> operands = buffer(insn, m.vdata(), m.vaddr(), m.offen(), m.idxen(), m.srsrc(), m.soffset(),
                m.tfe(), false);
        addressModifiers(mods, m.idxen(), m.offen(), m.offset(), m.glc(), m.slc(), m.dlc());
        if (m.tfe()) {
            mods.append(" tfe");
        }
        return join(op.mnemonic(), operands, mods);
    }

    /** The comma-separated operands of MUBUF and MTBUF: vdata (unless LDS), vaddr, srsrc, soffset. */
    private static List<String> buffer(Instruction insn, int vdata, int vaddr, boolean offen, boolean idxen, int srsrc,
                                       int soffset, boolean tfe, boolean lds) {
        Opcode op = insn.opcode();
        List<String> operands = new ArrayList<>();
        for (String operand : op.operands()) {
            String name = MemoryOperands.name(operand);
            String type = MemoryOperands.type(operand);
            switch (type) {
                case "bvaddr" -> {
                    int dwords = (offen ? 1 : 0) + (idxen ? 1 : 0);
                    operands.add(dwords == 0 ? "off" : MemoryOperands.vgprs(vaddr, dwords, op.mnemonic() + " vaddr"));
                }
                case "rsrc" -> operands.add(MemoryOperands.resource(srsrc));
                case "soffset" -> operands.add(MemoryOperands.soffset(soffset, insn.literal()));
                case "u12", "fmt" -> {
                    // printed among the modifiers
                }
                default -> {
                    int dwords = MemoryOperands.vgprDwords(type);
                    if (dwords < 0 || !name.equals("vdata")) {
                        throw new IllegalStateException(op + ": unknown buffer operand " + operand);
                    }
                    if (!lds) {
                        int width = dwords + (tfe && !op.has(OpcodeFlag.ATOMIC) ? 1 : 0);
                        operands.add(MemoryOperands.vgprs(vdata, width, op.mnemonic() + " vdata"));
                    }
                }
            }
        }
        return operands;
    }

    private static void addressModifiers(StringBuilder mods, boolean idxen, boolean offen, int offset, boolean glc,
                                         boolean slc, boolean dlc) {
        if (idxen) {
            mods.append(" idxen");
        }
        if (offen) {
            mods.append(" offen");
        }
        if (offset != 0) {
            mods.append(" offset:").append(offset);
        }
        cache(mods, glc, slc, dlc);
    }

    private static void cache(StringBuilder mods, boolean glc, boolean slc, boolean dlc) {
        if (glc) {
            mods.append(" glc");
        }
        if (slc) {
            mods.append(" slc");
        }
        if (dlc) {
            mods.append(" dlc");
        }
    }

    private static String flat(Opcode op, Fields.Flat f) {
        Encoding segment = op.encoding();
        if (f.lds() && !op.has(OpcodeFlag.LDS)) {
            throw new IllegalArgumentException(op.mnemonic() + " cannot load to LDS");
        }
        boolean saddrOff = f.saddr() == MemoryOperands.SADDR_OFF;
        List<String> operands = new ArrayList<>();
        StringBuilder mods = new StringBuilder();
        for (String operand : op.operands()) {
            String name = MemoryOperands.name(operand);
            String type = MemoryOperands.type(operand);
            String what = op.mnemonic() + " " + name;
            switch (type) {
                case "gvaddr" -> operands.add(MemoryOperands.vgprs(f.addr(), saddrOff ? 2 : 1, what));
                case "svaddr" -> operands.add(saddrOff ? MemoryOperands.vgprs(f.addr(), 1, what) : "off");
                case "gsaddr" -> operands.add(saddrOff ? "off" : MemoryOperands.scalarPair(f.saddr()));
                case "ssaddr" -> operands.add(saddrOff ? "off" : MemoryOperands.scalarSingle(f.saddr()));
                case "u12" -> {
                    // FLAT: llvm prints the raw field; the address adds FlatOffset.of (bit 11 ignored)
                    if (f.offset() != 0) {
                        mods.append(" offset:").append(f.offset() & 0xFFF);
                    }
                }
                case "s12" -> {
                    int offset = FlatOffset.of(segment, f.offset());
                    if (offset != 0) {
                        mods.append(" offset:").append(offset);
                    }
                }
                default -> {
                    int dwords = MemoryOperands.vgprDwords(type);
                    if (dwords < 0) {
                        throw new IllegalStateException(op + ": unknown FLAT operand " + operand);
                    }
                    switch (name) {
                        case "vdst" -> {
                            boolean returns = !op.has(OpcodeFlag.ATOMIC) || f.glc();
                            if (returns && !f.lds()) {
                                operands.add(MemoryOperands.vgprs(f.vdst(), dwords, what));
                            }
                        }
                        case "vaddr" -> operands.add(MemoryOperands.vgprs(f.addr(), dwords, what));
                        case "data" -> operands.add(MemoryOperands.vgprs(f.data(), dwords, what));
                        default -> throw new IllegalStateException(op + ": FLAT has no field " + name);
                    }
                }
            }
        }
        cache(mods, f.glc(), f.slc(), f.dlc());
        if (f.lds()) {
            mods.append(" lds");
        }
        return join(op.mnemonic(), operands, mods);
    }

    private static String join(String mnemonic, List<String> operands, CharSequence mods) {
        StringBuilder s = new StringBuilder(mnemonic);
        if (!operands.isEmpty()) {
            s.append(' ').append(String.join(", ", operands));
        }
        return s.append(mods).toString();
    }
}
