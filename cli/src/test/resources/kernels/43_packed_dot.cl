//! kernel packed_dot
//! groups 1 size 64
//! arg buffer i32 128 rand 67
//! arg buffer f16 128 unit 68
//! arg zeros 3584
// Two-element 16-bit vectors (packed math: v_pk_* on halves, shorts and ushorts, saturating adds,
// shifts, min/max) and the dot-product builtins (2 x i16/u16, 4 x i8/u8, 8 x i4/u4, with and without
// clamping; 2 x f16 into f32 on small integers, where every rounding order gives the same sum).
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half half2_t __attribute__((ext_vector_type(2)));
typedef short short2_t __attribute__((ext_vector_type(2)));
typedef ushort ushort2_t __attribute__((ext_vector_type(2)));

__kernel void packed_dot(__global const int *a, __global const half2_t *h, __global uint *out) {
    uint i = __builtin_amdgcn_workitem_id_x();
    int x = a[i], y = a[i + 64], z = a[(i * 3) & 127];
    half2_t p = h[i], q = h[(i + 9) & 63];
    short2_t s = __builtin_bit_cast(short2_t, x), t = __builtin_bit_cast(short2_t, y);
    ushort2_t us = __builtin_bit_cast(ushort2_t, x), ut = __builtin_bit_cast(ushort2_t, y);
    __global uint *o = out + i * 14;
    o[0] = __builtin_bit_cast(uint, p * q + p);
    o[1] = __builtin_bit_cast(uint, p - q * (half) 3.0f);
    o[2] = __builtin_bit_cast(uint, __builtin_elementwise_max(p, q)) ^ __builtin_bit_cast(uint, __builtin_elementwise_min(p, -q));
    o[3] = __builtin_bit_cast(uint, s + t) ^ __builtin_bit_cast(uint, s * t);
    o[4] = __builtin_bit_cast(uint, __builtin_elementwise_add_sat(s, t)) + __builtin_bit_cast(uint, __builtin_elementwise_sub_sat(us, ut));
    o[5] = __builtin_bit_cast(uint, s >> (t & (short) 15)) ^ __builtin_bit_cast(uint, us << (ut & (ushort) 15));
    o[6] = __builtin_bit_cast(uint, __builtin_elementwise_max(s, t)) + __builtin_bit_cast(uint, __builtin_elementwise_min(us, ut));
    o[7] = (uint) __builtin_amdgcn_sdot2(s, t, z, false) ^ ((i & 1) ? __builtin_amdgcn_udot2(us, ut, (uint) z, true) : __builtin_amdgcn_udot2(us, ut, (uint) z, false));
    o[8] = (uint) __builtin_amdgcn_sdot2(s, t, z, true);
    o[9] = (i & 2) ? (uint) __builtin_amdgcn_sdot4(x, y, z, true) : (uint) __builtin_amdgcn_sdot4(x, y, z, false);
    o[10] = (i & 4) ? __builtin_amdgcn_udot4((uint) x, (uint) y, (uint) z, true) : __builtin_amdgcn_udot4((uint) x, (uint) y, (uint) z, false);
    o[11] = (i & 8) ? (uint) __builtin_amdgcn_sdot8(x, y, z, true) : (uint) __builtin_amdgcn_sdot8(x, y, z, false);
    o[12] = (i & 16) ? __builtin_amdgcn_udot8((uint) x, (uint) y, (uint) z, true) : __builtin_amdgcn_udot8((uint) x, (uint) y, (uint) z, false);
    half2_t pi, qi;
    pi.x = (half) (float) ((x >> 20) % 200); pi.y = (half) (float) ((x >> 8) % 100);
    qi.x = (half) (float) (y % 50); qi.y = (half) (float) ((y >> 12) % 64);
    o[13] = __builtin_bit_cast(uint, __builtin_amdgcn_fdot2(pi, qi, (float) (z % 1000), false));
}
