//! kernel amdgcn_float_media
//! groups 1 size 64
//! arg buffer f32 256 rand 81
//! arg buffer u32 128 rand 82
//! arg zeros 3584
// amdgcn builtins for graphics-era instructions: med3 (with infinities and signed zeros), the class test,
// cube-map face id/coordinates, frexp parts, fract, ldexp, saturating packs to 16 bits, byte lerp and the
// sum-of-absolute-differences family.
__kernel void amdgcn_float_media(__global const float *f, __global const uint *u, __global uint *out) {
    uint i = __builtin_amdgcn_workitem_id_x();
    float x = f[i], y = f[i + 64], z = f[i + 128], w = f[i + 192];
    if (i % 5 == 0) x = 0.0f;
    if (i % 7 == 1) y = __builtin_inff();
    if (i % 11 == 2) y = -0.0f;
    if (i % 13 == 3) z = -z * 1.0e-41f;
    uint a = u[i], b = u[i + 64], c = u[(i * 3 + 1) & 127];
    __global uint *o = out + i * 14;
    o[0] = __builtin_bit_cast(uint, __builtin_amdgcn_fmed3f(x, y == y ? y : 1.0f, w));
    o[1] = __builtin_bit_cast(uint, __builtin_amdgcn_cubeid(x, w, z)) ^ __builtin_bit_cast(uint, __builtin_amdgcn_cubesc(z, x, w));
    o[2] = __builtin_bit_cast(uint, __builtin_amdgcn_fmed3f(z, w, x * 0.5f));
    o[3] = __builtin_amdgcn_classf(x, 0x3ff) | __builtin_amdgcn_classf(y, 0x204) << 1 | __builtin_amdgcn_classf(z, 0x090) << 2
            | __builtin_amdgcn_classf(w, 0x060) << 3 | __builtin_amdgcn_classf(y, 0x003) << 4;
    float cx = w, cy = z, cz = (i & 8) ? x : -x * 3.0f;
    o[4] = __builtin_bit_cast(uint, __builtin_amdgcn_cubeid(cx, cy, cz));
    o[5] = __builtin_bit_cast(uint, __builtin_amdgcn_cubesc(cx, cy, cz)) ^ __builtin_bit_cast(uint, __builtin_amdgcn_cubetc(cx, cy, cz));
    o[6] = __builtin_bit_cast(uint, __builtin_amdgcn_cubema(cx, cy, cz));
    o[7] = __builtin_bit_cast(uint, __builtin_amdgcn_frexp_mantf(w)) + (uint) __builtin_amdgcn_frexp_expf(z);
    o[8] = __builtin_bit_cast(uint, __builtin_amdgcn_fractf(w)) ^ __builtin_bit_cast(uint, __builtin_amdgcn_ldexpf(z, (int) (a % 64) - 32));
    o[9] = __builtin_bit_cast(uint, __builtin_amdgcn_cvt_pk_i16((int) a >> (i & 15), (int) b >> 3))
            ^ __builtin_bit_cast(uint, __builtin_amdgcn_cvt_pk_u16(a >> (i & 31), b >> 12)) * 3u;
    o[10] = __builtin_amdgcn_lerp(a, b, c);
    o[11] = __builtin_amdgcn_sad_u8(a, b, c >> 8) ^ __builtin_amdgcn_msad_u8(a, b & 0xff00ffff, c >> 4);
    o[12] = __builtin_amdgcn_sad_hi_u8(a, b, c) + __builtin_amdgcn_sad_u16(a, b, c >> 2);
    o[13] = __builtin_amdgcn_sad_u8(a, a ^ (1u << (i & 31)), 7);
}
