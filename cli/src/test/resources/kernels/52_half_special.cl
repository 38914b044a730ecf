//! kernel half_special
//! groups 1 size 64
//! arg buffer f16 128 unit 80
//! arg zeros 1024
// Half arithmetic at the edges (MODE keeps f16 denormals): subnormal operands and results, overflow to
// infinity, infinities and NaN in add/mul/sub, compares, min/max, floor/ceil/trunc/rint, ldexp and
// the half <-> float conversions of all of them. A NaN result is written as a flag.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
static half pick(uint k, half x) {
    switch (k % 12) {
    case 0: return (half) 0.0f;
    case 1: return (half) -0.0f;
    case 2: return (half) __builtin_inff();
    case 3: return (half) -__builtin_inff();
    case 4: return (half) 0x1p-20f;               // subnormal
    case 5: return (half) -0x1.8p-24f;            // smallest subnormals
    case 6: return (half) 65504.0f;
    case 7: return x * (half) 30000.0f;
    case 8: return x * (half) 0x1p-10f;
    default: return x;
    }
}

static ushort bits(half v) { return v != v ? 0x7e01 : __builtin_bit_cast(ushort, v); }

__kernel void half_special(__global const half *a, __global ushort *out) {
    uint i = __builtin_amdgcn_workitem_id_x();
    half x = pick(i, a[i]), y = pick(i / 12 + i * 7, a[i + 64]);
    __global ushort *o = out + i * 8;
    o[0] = bits(x + y);
    o[1] = bits(x * y);
    o[2] = bits(x - y * (half) 2.0f);
    o[3] = (x < y) | (x == y) << 1 | (x >= y) << 2 | (x != x) << 3 | __builtin_isinf((float) y) << 4;
    o[4] = (x == (half) 0.0f && y == (half) 0.0f) ? 9 : bits(__builtin_elementwise_max(x, y)) ^ bits(__builtin_elementwise_min(x, y));
    o[5] = bits(__builtin_elementwise_floor(x)) ^ bits(__builtin_elementwise_ceil(y));
    o[6] = bits(__builtin_elementwise_trunc(x)) + bits(__builtin_elementwise_rint(y));
    o[7] = bits(__builtin_ldexpf16(x, (int) (i % 20) - 10)) ^ (ushort) (__builtin_bit_cast(uint, (float) y) >> 13);
}
