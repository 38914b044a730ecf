package org.replayfarm.evalnode.hostmodel.valu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.a;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.b;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.c;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.op;

import java.math.BigInteger;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.junit.jupiter.api.Tag;

/**
 * Bitwise, shift, bit-field, bit-count, permute and align instructions (RDNA 2 ISA, VOP1/VOP2/VOP3).
 * Expected values are computed bit by bit in the test (loops over bit positions, BigInteger shifts),
 * not with the model's formulas.
 */
@Tag("unit")
class ValuBitTest {
    @TempDir
    Path dir;

    private static int bit(long x, int i) {
        return (int) (x >>> i & 1);
    }

    /** Bits [offset, offset + width) of x, one at a time. */
    private static int field(int x, int offset, int width) {
        int r = 0;
        for (int i = 0; i < width; i++) {
            int pos = offset + i;
            r |= (pos < 32 ? bit(x & 0xFFFFFFFFL, pos) : 0) << i;
        }
        return r;
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void logic_ops_and_32_bit_shifts_use_only_the_low_five_bits_of_the_amount(int wave) throws Exception {
        new GuestAsm(dir).waveSize(wave).cases("",
                op("v_and_b32 vD, v1, v2", l -> a(l) & b(l)),
                op("v_or_b32 vD, v1, v2", l -> a(l) | b(l)),
                op("v_xor_b32 vD, v1, v2", l -> a(l) ^ b(l)),
                op("v_xnor_b32 vD, v1, v2", l -> ~(a(l) ^ b(l))),
                op("v_not_b32 vD, v1", l -> ~a(l)),
                op("v_xor3_b32 vD, v1, v2, v3", l -> a(l) ^ b(l) ^ c(l)),
                op("v_or3_b32 vD, v1, v2, v3", l -> a(l) | b(l) | c(l)),
                op("v_and_or_b32 vD, v1, v2, v3", l -> (a(l) & b(l)) | c(l)),
                op("v_lshlrev_b32 vD, v2, v1", l -> BigInteger.valueOf(a(l) & 0xFFFFFFFFL)
                        .shiftLeft(b(l) % 32 < 0 ? b(l) % 32 + 32 : b(l) % 32).intValue()),
                op("v_lshrrev_b32 vD, v2, v1", l -> (int) ((a(l) & 0xFFFFFFFFL) / (1L << (b(l) & 31)))),
                op("v_ashrrev_i32 vD, v2, v1", l -> (int) Math.floorDiv((long) a(l), 1L << (b(l) & 31))),
                op("v_lshlrev_b32 vD, 32, v1", l -> a(l)),
                op("v_lshrrev_b32 vD, 33, v1", l -> a(l) >>> 1),
                op("v_ashrrev_i32 vD, 63, v1", l -> a(l) < 0 ? -1 : 0),
                op("v_lshl_or_b32 vD, v1, v2, v3", l -> (a(l) << (b(l) & 31)) | c(l)),
                op("v_lshl_add_u32 vD, v1, v2, v3", l -> (a(l) << (b(l) & 31)) + c(l)),
                op("v_add_lshl_u32 vD, v1, v2, v3", l -> (a(l) + b(l)) << (c(l) & 31)),
                op("v_xad_u32 vD, v1, v2, v3", l -> (a(l) ^ b(l)) + c(l)));
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void sixty_four_bit_shifts_mask_the_amount_to_six_bits(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        String p = t.lanes(1, GuestAsm::a) + t.lanes(2, GuestAsm::b) + t.lanes(3, GuestAsm::c)
                + "v_lshlrev_b64 v[20:21], v3, v[1:2]\n"
                + "v_lshrrev_b64 v[22:23], v3, v[1:2]\n"
                + "v_ashrrev_i64 v[24:25], v3, v[1:2]\n"
                + "v_lshlrev_b64 v[26:27], 64, v[1:2]\n"
                + "v_ashrrev_i64 v[28:29], 0x7f, v[1:2]\n";
        var out = t.run(p);
        for (int l = 0; l < wave; l++) {
            BigInteger x = BigInteger.valueOf(b(l)).shiftLeft(32).or(BigInteger.valueOf(a(l) & 0xFFFFFFFFL));
            int n = c(l) & 63;
            BigInteger unsigned = x.signum() < 0 ? x.add(BigInteger.ONE.shiftLeft(64)) : x;
            assertEquals(x.shiftLeft(n).longValue(), out.wave(0).vgpr64(20, l), "lshl lane " + l);
            assertEquals(unsigned.shiftRight(n).longValue(), out.wave(0).vgpr64(22, l), "lshr lane " + l);
            assertEquals(x.shiftRight(n).longValue(), out.wave(0).vgpr64(24, l), "ashr lane " + l);
            assertEquals(x.longValue(), out.wave(0).vgpr64(26, l), "shift by 64 is a shift by 0");
            assertEquals(x.shiftRight(63).longValue(), out.wave(0).vgpr64(28, l), "shift by 127 is a shift by 63");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void bit_field_extract_insert_and_mask_take_offset_and_width_modulo_32(int wave) throws Exception {
        new GuestAsm(dir).waveSize(wave).cases("",
                op("v_bfe_u32 vD, v1, v2, v3", l -> field(a(l), b(l) & 31, c(l) & 31)),
                op("v_bfe_i32 vD, v1, v2, v3", l -> {
                    int width = c(l) & 31;
                    if (width == 0) {
                        return 0;
                    }
                    int offset = b(l) & 31;
                    int r = 0;
                    for (int i = 0; i < 32; i++) {
                        // bits past the field copy its top bit; bits past bit 31 of S0 copy S0's sign
                        int pos = Math.min(offset + Math.min(i, width - 1), 31);
                        r |= bit(a(l) & 0xFFFFFFFFL, pos) << i;
                    }
                    return r;
                }),
                op("v_bfe_u32 vD, v1, 4, 8", l -> field(a(l), 4, 8)),
                op("v_bfe_u32 vD, v1, 28, 8", l -> field(a(l), 28, 8)),
                op("v_bfe_i32 vD, v1, 24, 8", l -> (byte) (a(l) >>> 24)),
                op("v_bfe_u32 vD, v1, 0, 32", l -> 0),
                op("v_bfi_b32 vD, v1, v2, v3", l -> {
                    int r = 0;
                    for (int i = 0; i < 32; i++) {
                        r |= (bit(a(l) & 0xFFFFFFFFL, i) == 1 ? bit(b(l) & 0xFFFFFFFFL, i) : bit(c(l) & 0xFFFFFFFFL, i)) << i;
                    }
                    return r;
                }),
                op("v_bfm_b32 vD, v1, v2", l -> {
                    int r = 0;
                    for (int i = 0; i < 32; i++) {
                        int rel = i - (b(l) & 31);
                        r |= (rel >= 0 && rel < (a(l) & 31) ? 1 : 0) << i;
                    }
                    return r;
                }));
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void bit_counts_scans_and_reversal(int wave) throws Exception {
        new GuestAsm(dir).waveSize(wave).cases("",
                op("v_bcnt_u32_b32 vD, v1, v2", l -> {
                    int n = 0;
                    for (int i = 0; i < 32; i++) {
                        n += bit(a(l) & 0xFFFFFFFFL, i);
                    }
                    return n + b(l);
                }),
                op("v_bfrev_b32 vD, v1", l -> {
                    int r = 0;
                    for (int i = 0; i < 32; i++) {
                        r |= bit(a(l) & 0xFFFFFFFFL, i) << (31 - i);
                    }
                    return r;
                }),
                op("v_ffbh_u32 vD, v1", l -> {
                    for (int i = 31; i >= 0; i--) {
                        if (bit(a(l) & 0xFFFFFFFFL, i) == 1) {
                            return 31 - i;
                        }
                    }
                    return -1;
                }),
                op("v_ffbl_b32 vD, v1", l -> {
                    for (int i = 0; i < 32; i++) {
                        if (bit(a(l) & 0xFFFFFFFFL, i) == 1) {
                            return i;
                        }
                    }
                    return -1;
                }),
                op("v_ffbh_i32 vD, v1", l -> {
                    int sign = bit(a(l) & 0xFFFFFFFFL, 31);
                    for (int i = 30; i >= 0; i--) {
                        if (bit(a(l) & 0xFFFFFFFFL, i) != sign) {
                            return 31 - i;
                        }
                    }
                    return -1;
                }));
    }

    /** The byte v_perm_b32 selects: the ISA's table, written out case by case. */
    private static int permByte(int s0, int s1, int selector) {
        long pool = (s0 & 0xFFFFFFFFL) << 32 | (s1 & 0xFFFFFFFFL);
        switch (selector) {
            case 8: return bit(s1 & 0xFFFFFFFFL, 15) * 0xFF;
            case 9: return bit(s1 & 0xFFFFFFFFL, 31) * 0xFF;
            case 10: return bit(s0 & 0xFFFFFFFFL, 15) * 0xFF;
            case 11: return bit(s0 & 0xFFFFFFFFL, 31) * 0xFF;
            case 12: return 0;
            default:
                return selector < 8 ? (int) (pool >>> (8 * selector)) & 0xFF : 0xFF;
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void perm_selects_bytes_sign_fills_and_constants(int wave) throws Exception {
        // selectors per lane: four consecutive values from 0..15, then 0x0D..0xFF constants in the last lanes
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        java.util.function.IntUnaryOperator sel = l -> l < 16 ? (l & 15) | ((l + 1) & 15) << 8 | ((l + 2) & 15) << 16
                | ((l + 3) & 15) << 24 : l < 24 ? 0xFF0D0C08 + l : 0x0B0A0908 ^ (l & 3);
        var out = t.run(t.lanes(1, l -> a(l + 3)) + t.lanes(2, l -> b(l + 1) ^ 0x00800080) + t.lanes(3, sel)
                + "v_perm_b32 v20, v1, v2, v3\nv_perm_b32 v21, v1, v2, 0x0c0d0e0f\n");
        for (int l = 0; l < wave; l++) {
            int s0 = a(l + 3);
            int s1 = b(l + 1) ^ 0x00800080;
            int expected = 0;
            int expectedConst = 0;
            for (int i = 0; i < 4; i++) {
                expected |= permByte(s0, s1, sel.applyAsInt(l) >>> (8 * i) & 0xFF) << (8 * i);
                expectedConst |= permByte(s0, s1, 0x0c0d0e0f >>> (8 * i) & 0xFF) << (8 * i);
            }
            assertEquals(expected, out.wave(0).vgpr(20, l), "lane " + l);
            assertEquals(0x00FFFFFF, expectedConst);
            assertEquals(expectedConst, out.wave(0).vgpr(21, l), "constant selectors lane " + l);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void alignbit_and_alignbyte_shift_the_64_bit_concatenation_right(int wave) throws Exception {
        new GuestAsm(dir).waveSize(wave).cases("",
                op("v_alignbit_b32 vD, v1, v2, v3", l -> {
                    int r = 0;
                    for (int i = 0; i < 32; i++) {
                        int pos = i + (c(l) & 31);
                        r |= (pos < 32 ? bit(b(l) & 0xFFFFFFFFL, pos) : bit(a(l) & 0xFFFFFFFFL, pos - 32)) << i;
                    }
                    return r;
                }),
                op("v_alignbyte_b32 vD, v1, v2, v3", l -> {
                    byte[] bytes = new byte[8];
                    for (int i = 0; i < 4; i++) {
                        bytes[i] = (byte) (b(l) >>> (8 * i));
                        bytes[i + 4] = (byte) (a(l) >>> (8 * i));
                    }
                    int k = c(l) & 3;
                    int r = 0;
                    for (int i = 0; i < 4; i++) {
                        r |= (bytes[i + k] & 0xFF) << (8 * i);
                    }
                    return r;
                }),
                op("v_alignbit_b32 vD, v1, v2, 0", l -> b(l)),
                op("v_alignbit_b32 vD, v1, v2, 32", l -> b(l)));
    }
}
