//! kernel byte_vectors
//! groups 1 size 64
//! arg buffer u8 512 rand 75
//! arg buffer f16 256 unit 76
//! arg zeros 3584
// Byte and 16-bit lanes inside registers: uchar4/char4 arithmetic, shifts, compares and selects (SDWA byte
// and word selects, sign extension, preserved destination bytes), bytes and halves loaded into and stored
// from the high half of a register (d16_hi), half2 built from scattered halves and combined across its
// components (op_sel), and float selects whose operands carry negate/abs modifiers.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef uchar uchar4_t __attribute__((ext_vector_type(4)));
typedef char char4_t __attribute__((ext_vector_type(4)));
typedef half half2_t __attribute__((ext_vector_type(2)));
typedef short short2_t __attribute__((ext_vector_type(2)));

__kernel void byte_vectors(__global const uchar *b, __global const half *h, __global uint *out) {
    uint i = __builtin_amdgcn_workitem_id_x();
    uchar4_t u = *(__global const uchar4_t *) (b + i * 4);
    uchar4_t v = *(__global const uchar4_t *) (b + 256 + ((i * 4 + 8) & 255));
    char4_t c = __builtin_bit_cast(char4_t, u), d = __builtin_bit_cast(char4_t, v);
    __global uint *o = out + i * 12;
    o[0] = __builtin_bit_cast(uint, u + v);
    o[1] = __builtin_bit_cast(uint, u * v) ^ __builtin_bit_cast(uint, (uchar4_t) (u >> (v & (uchar) 7)));
    o[2] = __builtin_bit_cast(uint, (char4_t) (c >> (char) 2)) + __builtin_bit_cast(uint, (char4_t) (c / (char) 3));
    char4_t m = c < d;
    o[3] = __builtin_bit_cast(uint, m) ^ __builtin_bit_cast(uint, (char4_t) (c > d ? c : d));
    o[4] = (uint) (int) c.y * (uint) (int) d.w + (uint) u.z * (uint) v.x;
    short2_t s;
    s.x = (short) c.x * (short) d.z;
    s.y = (short) (u.w - v.y);
    o[5] = __builtin_bit_cast(uint, s);
    half2_t p, q;
    p.x = h[i]; p.y = h[(i * 5 + 3) & 255];
    q.x = h[128 + (i & 127)]; q.y = h[(i + 77) & 255];
    half2_t r;
    r.x = p.y + q.x; r.y = p.x * q.y;
    o[6] = __builtin_bit_cast(uint, r);
    half2_t t = p * q;
    t.x = t.y - p.x;
    o[7] = __builtin_bit_cast(uint, t.yx);
    __global uchar *ob = (__global uchar *) (out + 768 + i);
    ob[0] = u.w; ob[1] = (uchar) (v.z + 1); ob[2] = (uchar) s.y; ob[3] = (uchar) (s.x >> 8);
    __global half *oh = (__global half *) (out + 768 + 64 + i);
    oh[0] = r.y; oh[1] = t.x;
    float x = (float) p.x, y = (float) q.y;
    o[8] = __builtin_bit_cast(uint, u.x > v.x ? -x : __builtin_fabsf(y));
    o[9] = __builtin_bit_cast(uint, u.y & 1 ? -__builtin_fabsf(x) : y * 2.0f);
    o[10] = __builtin_bit_cast(uint, (float) c.z + (float) u.w * 0.5f);
    o[11] = (uint) (uchar) (u.x + u.y) | (uint) (ushort) (short) (c.z * c.w) << 8;
}
