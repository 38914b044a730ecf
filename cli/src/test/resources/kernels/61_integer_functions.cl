//! kernel integer_functions
//! library
//! groups 2 size 64
//! arg buffer i32 128 rand 62
//! arg buffer i32 128 rand 63
//! arg zeros 8192
// OpenCL C's integer functions on int, uint, short, uchar and vectors: abs, abs_diff, add_sat, sub_sat, hadd,
// rhadd, mul_hi, mad_hi, mad_sat, mad24, mul24, rotate, popcount, clz, ctz, upsample, min, max, clamp. Exact.
kernel void integer_functions(global const int *a, global const int *b, global uint *out) {
    size_t i = get_global_id(0);
    int x = a[i], y = b[i];
    uint ux = (uint) x, uy = (uint) y;
    global uint *o = out + i * 16;
    o[0] = abs(x) + abs_diff(x >> 2, y >> 2); // a difference that overflows int is left to the compiler (see README)
    o[1] = (uint) add_sat(x, y) ^ (uint) sub_sat(x, y);
    o[2] = hadd(ux, uy) + rhadd(x, y);
    o[3] = mul_hi(x, y) + mul_hi(ux, uy);
    o[4] = (uint) mad_hi(x, y, 7) + mad_sat(ux, 3u, uy);
    o[5] = (uint) mad24(x & 0xfff, y & 0x7ff, 5) + mul24(ux & 0xffff, uy & 0xff);
    o[6] = rotate(ux, (uint) i) ^ (uint) rotate(x, -3);
    o[7] = popcount(ux) + clz(ux) * 64 + ctz(uy | 0x80000000u) * 4096;
    o[8] = (uint) upsample((short) (x >> 16), (ushort) y);
    o[9] = (uint) min(x, y) + max(ux, uy) + (uint) clamp(x, -1000, 1000);
    short s = (short) x;
    uchar c = (uchar) y;
    o[10] = (uint) (ushort) add_sat(s, (short) 20000) | (uint) sub_sat(c, (uchar) 100) << 16;
    int4 v = (int4)(x, y, x ^ y, x + y);
    int4 r = abs_diff(v >> 2, (int4)(y >> 2)) > (uint4)(1u << 28) ? v : -v;
    o[11] = (uint) r.x + (uint) r.w;
    uint4 p = popcount(as_uint4(v)) + clz(as_uint4(v));
    o[12] = p.x + p.y * 100 + p.z * 10000 + p.w * 1000000;
    o[13] = (uint) hadd(v, (int4)(3)).z ^ (uint) rotate(v, (int4)(1, 2, 3, 4)).y;
    o[14] = (uint) max(v, (int4)(0)).x + (uint) min(v, 0).w;
    o[15] = (uint) (long) upsample(x, uy) ^ (uint) (upsample(x, uy) >> 32);
}
