package org.replayfarm.evalnode.hostmodel.valu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.function.IntUnaryOperator;
import org.replayfarm.evalnode.hostmodel.AsmRunner;
import org.replayfarm.evalnode.hostmodel.HostModel;

/**
 * Shared set-up for the vector ALU integer tests: programs built from VALU instructions only (lane
 * values placed with v_writelane_b32, scalars with v_readfirstlane_b32, EXEC with v_cmpx), run on one
 * wave32 or wave64 group, and per-lane checks against values computed in the test.
 */
final class ValuTestSupport {
    /** 32-bit corner values the tests cycle through. */
    static final int[] CORNERS = {0, 1, 2, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFE, 0x12345678, 0x9ABCDEF0,
            31, 32, 33, 63, 64, 0x00FF00FF, 0x80000001, 0xFFFF, 0x10000, 0x7FFF, 0x8000, 0xDEADBEEF, 0x01000000,
            0x00FFFFFF, 0x00800000, 0xFF800000, 5, 17, 0x40000000, 0xC0000000, 100, 0xFFFFFF00, 0x0F0F0F0F};

    private final Path dir;
    final int waveSize;
    private final HostModel.Tier tier;

    ValuTestSupport(Path dir, int waveSize) {
        this(dir, waveSize, HostModel.Tier.byDefault());
    }

    ValuTestSupport(Path dir, int waveSize, HostModel.Tier tier) {
        this.dir = dir;
        this.waveSize = waveSize;
        this.tier = tier;
    }

    /** First operand value of a lane. */
    static int a(int lane) {
        return CORNERS[lane % CORNERS.length];
    }

    /** Second operand value of a lane (a different corner pairing than {@link #a}). */
    static int b(int lane) {
        return CORNERS[(lane * 7 + 3) % CORNERS.length];
    }

    /** Third operand value of a lane. */
    static int c(int lane) {
        return CORNERS[(lane * 13 + 11) % CORNERS.length];
    }

    /** v_writelane_b32 of every lane's value into {@code v}. */
    String lanes(int v, IntUnaryOperator value) {
        StringBuilder s = new StringBuilder();
        for (int lane = 0; lane < waveSize; lane++) {
            s.append("v_writelane_b32 v").append(v).append(", 0x").append(Integer.toHexString(value.applyAsInt(lane)))
                    .append(", ").append(lane).append('\n');
        }
        return s.toString();
    }

    /** Sets a scalar register to a constant (through v_mov_b32 + v_readfirstlane_b32, using {@code scratch}). */
    static String scalar(String sgpr, int value, int scratch) {
        return "v_mov_b32 v" + scratch + ", 0x" + Integer.toHexString(value) + "\nv_readfirstlane_b32 " + sgpr + ", v"
                + scratch + "\n";
    }

    /** Sets a lane mask (one SGPR in wave32, the pair from {@code sgpr} in wave64). */
    String mask(int sgpr, long value, int scratch) {
        String s = scalar("s" + sgpr, (int) value, scratch);
        if (waveSize == 64) {
            s += scalar("s" + (sgpr + 1), (int) (value >>> 32), scratch);
        }
        return s;
    }

    /** Restricts EXEC to the lanes of {@code active} (v_cmpx over a per-lane flag in {@code scratch}). */
    String exec(long active, int scratch) {
        return lanes(scratch, lane -> (int) (active >>> lane & 1)) + "v_cmpx_ne_u32_e32 0, v" + scratch + "\n";
    }

    /** VCC's name in this wave size. */
    String vcc() {
        return waveSize == 32 ? "vcc_lo" : "vcc";
    }

    /** A lane-mask operand from SGPR {@code n}: s{n} in wave32, s[n:n+1] in wave64. */
    String maskOperand(int n) {
        return waveSize == 32 ? "s" + n : "s[" + n + ":" + (n + 1) + "]";
    }

    long allLanes() {
        return waveSize == 64 ? -1L : 0xFFFF_FFFFL;
    }

    AsmRunner.Outcome run(String program) throws Exception {
        AsmRunner r = new AsmRunner(dir).tier(tier);
        if (waveSize == 64) {
            r.wave64();
        }
        AsmRunner.Outcome out = r.groupSize(waveSize).run(program + "s_endpgm\n");
        assertTrue(out.result().fault().isEmpty(), () -> out.result().fault().toString());
        return out;
    }

    /** Checks every lane of {@code v} against {@code expected}. */
    void expect(AsmRunner.Outcome out, int v, IntUnaryOperator expected, String what) {
        expect(out, v, expected, l -> out.wave(0).vgpr(v, l), what);
    }

    void expect(AsmRunner.Outcome out, int v, IntUnaryOperator expected, IntUnaryOperator actual, String what) {
        for (int lane = 0; lane < waveSize; lane++) {
            int e = expected.applyAsInt(lane);
            int got = actual.applyAsInt(lane);
            final int l = lane;
            assertEquals(e, got, () -> what + " lane " + l + " (wave" + waveSize + "): expected 0x"
                    + Integer.toHexString(e) + " got 0x" + Integer.toHexString(got) + " for a=0x"
                    + Integer.toHexString(a(l)) + " b=0x" + Integer.toHexString(b(l)) + " c=0x" + Integer.toHexString(c(l)));
        }
    }

    /** One instruction under test: its assembly with {@code vD} for the destination, and the expected lanes. */
    record Case(String asm, IntUnaryOperator expected, int mask) {
    }

    static Case op(String asm, IntUnaryOperator expected) {
        return new Case(asm, expected, -1);
    }

    /** A case whose result is 16 bits in the low half: only those bits are checked. */
    static Case low16(String asm, IntUnaryOperator expected) {
        return new Case(asm, expected, 0xFFFF);
    }

    /**
     * Runs {@code setup} then every case with its own destination (v20, v21, ...; a 64-bit destination
     * writes vD as a pair, so such cases come as two Case rows using {@code vD} and checking halves),
     * and checks each against its expectation. Operands a, b, c sit in v1, v2, v3.
     */
    AsmRunner.Outcome cases(String setup, Case... cases) throws Exception {
        StringBuilder p = new StringBuilder();
        p.append(lanes(1, ValuTestSupport::a)).append(lanes(2, ValuTestSupport::b)).append(lanes(3, ValuTestSupport::c));
        p.append(setup);
        for (int i = 0; i < cases.length; i++) {
            int d = 20 + 2 * i;
            p.append(cases[i].asm().replace("vP", "v[" + d + ":" + (d + 1) + "]").replace("vD", "v" + d)).append('\n');
        }
        AsmRunner.Outcome out = run(p.toString());
        for (int i = 0; i < cases.length; i++) {
            Case k = cases[i];
            int reg = 20 + 2 * i;
            expect(out, reg, l -> k.expected().applyAsInt(l) & k.mask(), l -> out.wave(0).vgpr(reg, l) & k.mask(),
                    k.asm());
        }
        return out;
    }

    /** The lane mask held from SGPR {@code n}. */
    long laneMask(AsmRunner.Outcome out, int n) {
        return out.wave(0).laneMask(n);
    }
}
