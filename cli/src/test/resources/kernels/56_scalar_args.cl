//! kernel scalar_args
//! groups 2 size 64
//! arg buffer i32 128 small 83
//! arg i8 -7
//! arg zeros 3072
//! arg u8 200
//! arg i16 -1234
//! arg u16 60000
//! arg f16 2.375
//! arg i64 -5000000000
//! arg u64 0x8000000000000001
//! arg f64 0.15625
//! arg zeros 4096
//! arg f32 2.5
//! arg i32 -3
// By-value arguments of every scalar size, interleaved so their kernarg offsets pad: char, uchar, short,
// ushort, half (1 and 2 bytes), long, ulong, double (8 bytes), float and int. Each work-item combines them
// with its input; the 64-bit results are written whole.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__kernel void scalar_args(__global const int *in, char c, __global uint *out, uchar uc, short s, ushort us,
                          half h, long lg, ulong ul, double d, __global ulong *wide, float f, int i) {
    uint l = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
    int x = in[l];
    __global uint *o = out + l * 6;
    o[0] = (uint) (x * c);
    o[1] = (uint) (x + uc) ^ (uint) (uc << 24);
    o[2] = (uint) (x * s);
    o[3] = (uint) us * (uint) (x + 100);
    half hx = (half) x * h + h;
    o[4] = (uint) __builtin_bit_cast(ushort, hx);
    o[5] = __builtin_bit_cast(uint, (float) x * f + (float) i);
    __global ulong *w = wide + l * 4;
    w[0] = (ulong) (lg * x);
    w[1] = ul ^ (ulong) x << 17;
    w[2] = __builtin_bit_cast(ulong, d * (double) x - d);
    w[3] = (ulong) (lg + (long) c) ^ ul;
}
