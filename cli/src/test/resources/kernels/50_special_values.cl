//! kernel special_values
//! groups 1 size 64
//! arg buffer f64 64 rand 78
//! arg zeros 4096
// IEEE special cases through the device's multi-instruction sequences: f64 division (div_scale, div_fmas,
// div_fixup) and f64 square root with zeros, infinities, NaN, subnormals, results that overflow or
// underflow, f32 square root of the same, and f32/f64 fma and min/max with infinities. A NaN result is
// written as a flag: its bits are the device's business.
static double pick(uint k, double x) {
    switch (k % 12) {
    case 0: return 0.0;
    case 1: return -0.0;
    case 2: return __builtin_inf();
    case 3: return -__builtin_inf();
    case 4: return __builtin_nan("");
    case 5: return 0x1p-1070;
    case 6: return -0x1.8p-1040;
    case 7: return 0x1.fffffffffffffp1023;
    case 8: return 0x1p-600;
    case 9: return 0x1p600;
    default: return x;
    }
}

static ulong bits(double v) { return v != v ? 0x7ff8dead0000dead : __builtin_bit_cast(ulong, v); }
static uint fbits(float v) { return v != v ? 0x7fc0deadu : __builtin_bit_cast(uint, v); }

__kernel void special_values(__global const double *a, __global ulong *out) {
    uint i = __builtin_amdgcn_workitem_id_x();
    double x = pick(i, a[i]), y = pick(i / 12 + i * 5, a[(i + 7) & 63]);
    __global ulong *o = out + i * 8;
    o[0] = bits(x / y);
    o[1] = bits(y / x);
    o[2] = bits(__builtin_sqrt(x));
    o[3] = bits(__builtin_fma(x, y, x));
    // min/max of +0 and -0: C leaves the choice open, the device orders -0 below +0; not compared
    int zeros = x == 0.0 && y == 0.0;
    o[4] = zeros ? 5 : bits(__builtin_fmin(x, y)) ^ bits(__builtin_fmax(x, y)) * 3;
    float fx = (float) x, fy = (float) y;
    o[5] = (ulong) fbits(__builtin_sqrtf(fx)) | (ulong) fbits(__builtin_fmaf(fx, fy, 1.0f)) << 32;
    o[6] = (ulong) fbits(fx * fy) | (ulong) fbits(fx + fy) << 32;
    o[7] = (ulong) (fx == 0.0f && fy == 0.0f ? 5u : fbits(__builtin_fminf(fx, fy))) | (ulong) fbits(__builtin_ldexpf(fy, (int) (i % 40) - 20)) << 32;
}
