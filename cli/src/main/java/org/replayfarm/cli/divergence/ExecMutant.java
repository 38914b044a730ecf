package org.replayfarm.cli.divergence;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.evalnode.probe.Registers;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.isa.Disassembler;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.model.isa.OpcodeFlag;
import org.replayfarm.model.isa.Syntax;

/**
 * A planted single-instruction bug for the {@code exec:} half of the planted-bug benchmark: the host model runs the
 * capture it is given with one instruction's effect mutated, as {@link Mutants} mutates a translation's. The
 * instruction is found by its PC and its first word: where a probe jump displaced it (the word there is an
 * {@code s_branch}), it is mutated where the jump leads, the stub that executes it in its place. Operators: a
 * destination's bits 4 and 22 flipped (BITFLIP), the two register sources swapped (SWAP), EXEC ignored by a VALU
 * instruction (EXEC), the SCC an instruction writes inverted (CONDITION), round toward +infinity (ROUNDING), the f32
 * denormal mode flipped (DENORMAL). LANE has no host-model form and does not apply.
 */
public final class ExecMutant implements HostModel.StepListener {
    private final Mutants.Operator op;
    private final long site;
    private final int waveSize;
    private final Syntax syntax;
    private long savedExec;
    private int savedMode;
    private int[] swapped;
    private int[] savedX;
    private int[] savedY;
    private long execBefore;

    public ExecMutant(Mutants.Operator op, long site, int waveSize) {
        this.op = op;
        this.site = site;
        this.waveSize = waveSize;
        this.syntax = waveSize == 64 ? Syntax.WAVE64 : Syntax.WAVE32;
    }

    /** The PC to mutate in {@code file}: {@code pc} when its first word is {@code word}, else the probe stub's copy. */
    public static long site(CaptureFile file, long pc, int word) {
        var p = file.metadata().getProgram();
        ByteBuffer code = file.blob(p.getCode()).order(ByteOrder.LITTLE_ENDIAN);
        int at = (int) (pc - p.getCodeAddress());
        int here = code.getInt(at);
        if (here == word) {
            return pc;
        }
        if ((here & 0xffff0000) == 0xBF820000) {
            long target = pc + 4 + 4L * (short) (here & 0xffff);
            if (code.getInt((int) (target - p.getCodeAddress())) == word) {
                return target;
            }
        }
        throw new IllegalArgumentException(String.format("pc 0x%x holds 0x%08x, not the mutant's instruction 0x%08x "
                + "nor a jump to it", pc, here, word));
    }

    /** Whether {@code op} applies to {@code insn}. */
    public static boolean applies(Mutants.Operator op, Instruction insn, int waveSize) {
        Syntax syntax = waveSize == 64 ? Syntax.WAVE64 : Syntax.WAVE32;
        String text = Disassembler.text(insn, syntax);
        Registers.Access a = Registers.of(insn, text, waveSize);
        boolean vector = !insn.encoding().name().startsWith("SOP") && !insn.encoding().name().equals("SMEM");
        boolean valu = insn.encoding().name().startsWith("VOP");
        String m = insn.mnemonic();
        return switch (op) {
            case BITFLIP -> !insn.opcode().has(OpcodeFlag.BRANCH) && firstWritten(a) >= 0;
            case SWAP -> valu && sources(insn, text, waveSize) != null;
            case EXEC -> valu && vector && !m.startsWith("v_readlane") && !m.startsWith("v_readfirstlane")
                    && !m.startsWith("v_cmpx");
            case CONDITION -> contains(a.writes(), Registers.SCC);
            case ROUNDING, DENORMAL -> valu && (m.contains("_f32") || m.contains("_f16") || m.contains("_f64"));
            case LANE -> false;
        };
    }

    private static boolean contains(int[] a, int v) {
        for (int x : a) {
            if (x == v) {
                return true;
            }
        }
        return false;
    }

    /** The first register written other than SCC and EXEC, or -1. */
    private static int firstWritten(Registers.Access a) {
        for (int r : a.writes()) {
            if (r != Registers.SCC && r != Registers.EXEC_LO && r != Registers.EXEC_LO + 1) {
                return r;
            }
        }
        return -1;
    }

    /** The two register sources (operands 1 and 2, one register each, of one kind, different), or null. */
    private static int[] sources(Instruction insn, String text, int waveSize) {
        var ops = Registers.operands(text, waveSize);
        // after the destination (and a carry-out the instruction writes: VOP3b)
        int first = Registers.of(insn, text, waveSize).writes().length > 0 && ops.size() > 1
                && ops.get(1).stream().allMatch(r -> contains(Registers.of(insn, text, waveSize).writes(), r)) ? 2 : 1;
        if (ops.size() < first + 2 || ops.get(first).size() != 1 || ops.get(first + 1).size() != 1) {
            return null;
        }
        int x = ops.get(first).get(0);
        int y = ops.get(first + 1).get(0);
        boolean same = (x >= Registers.VGPR) == (y >= Registers.VGPR) && x != Registers.SCC && y != Registers.SCC;
        return same && x != y ? new int[] {x, y} : null;
    }

    @Override
    public void before(Wave wave, long pc, Instruction insn) {
        if (pc != site) {
            return;
        }
        execBefore = wave.exec();
        switch (op) {
            case EXEC -> {
                savedExec = wave.exec();
                wave.setExec(waveSize == 64 ? -1L : 0xffffffffL);
            }
            case ROUNDING -> {
                savedMode = wave.mode();
                wave.setMode((savedMode & ~0x3) | 0x1);
            }
            case DENORMAL -> {
                savedMode = wave.mode();
                wave.setMode(savedMode ^ 0x30);
            }
            case SWAP -> {
                swapped = sources(insn, Disassembler.text(insn, syntax), waveSize);
                if (swapped != null) {
                    savedX = read(wave, swapped[0]);
                    savedY = read(wave, swapped[1]);
                    write(wave, swapped[0], savedY);
                    write(wave, swapped[1], savedX);
                }
            }
            default -> { }
        }
    }

    @Override
    public void after(Wave wave, long pc, Instruction insn) {
        if (pc != site) {
            return;
        }
        Registers.Access a = Registers.of(insn, Disassembler.text(insn, syntax), waveSize);
        switch (op) {
            case BITFLIP -> {
                int r = firstWritten(a);
                if (r >= Registers.VGPR) {
                    for (int l = 0; l < waveSize; l++) {
                        if ((execBefore >>> l & 1) != 0) {
                            wave.setVgpr(r - Registers.VGPR, l, wave.vgpr(r - Registers.VGPR, l) ^ 0x400010);
                        }
                    }
                } else if (r >= 0) {
                    wave.setSgpr(r, wave.sgpr(r) ^ 0x400010);
                }
            }
            case CONDITION -> wave.setScc(!wave.scc());
            case EXEC -> {
                if (!contains(a.writes(), Registers.EXEC_LO)) {
                    wave.setExec(savedExec);
                }
            }
            case ROUNDING, DENORMAL -> wave.setMode((wave.mode() & ~0xff) | (savedMode & 0xff));
            case SWAP -> {
                if (swapped != null) {
                    // each source gets its own value back unless the instruction wrote it
                    if (!contains(a.writes(), swapped[0])) {
                        write(wave, swapped[0], savedX);
                    }
                    if (!contains(a.writes(), swapped[1])) {
                        write(wave, swapped[1], savedY);
                    }
                }
            }
            default -> { }
        }
    }

    private int[] read(Wave wave, int r) {
        if (r < Registers.VGPR) {
            return new int[] {wave.sgpr(r)};
        }
        int[] v = new int[waveSize];
        for (int l = 0; l < waveSize; l++) {
            v[l] = wave.vgpr(r - Registers.VGPR, l);
        }
        return v;
    }

    private void write(Wave wave, int r, int[] v) {
        if (r < Registers.VGPR) {
            wave.setSgpr(r, v[0]);
            return;
        }
        for (int l = 0; l < waveSize; l++) {
            wave.setVgpr(r - Registers.VGPR, l, v[l]);
        }
    }
}
