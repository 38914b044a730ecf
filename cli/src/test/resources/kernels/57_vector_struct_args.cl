//! kernel vector_struct_args
//! groups 2 size 64
//! arg buffer f32 128 unit 84
//! arg f32x2 0.5,-1.25
//! arg i32x3 1,-2,3
//! arg zeros 16384
//! arg f32x4 1.5,2,-0.75,4
//! arg u8x4 1,2,250,255
//! arg bytes fbffffff0000c03f2c010000 (pair_t) {-5, 1.5f, 300}
//! arg u16x8 1,2,3,4,5,6,7,65535
//! arg bytes 090000000000000000000000000002c00110000000000000 (struct tri) {9, -2.25, 4097}
//! arg f64x2 0.375,-8
//! arg f16x4 0.5,1.5,-2,3.25
//! arg i8x3 -1,2,-3
//! arg i64x2 -9000000000,7
// Vectors and structs by value: float2, int3 (16 bytes, like int4), float4, uchar4, a 12-byte struct, ushort8, a
// 24-byte struct with padding inside, double2, half4, char3 (4 bytes) and long2, at the offsets clang gives
// them. Each work-item combines every component with its input; 32 words out per work-item.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef struct { int a; float b; short c; } pair_t;
struct tri { char a; double d; ushort s; };
__kernel void vector_struct_args(__global const float *in, float2 f2, int3 i3, __global uint *out, float4 f4,
                                 uchar4 u4, pair_t p, ushort8 u8, struct tri t, double2 d2, half4 h4, char3 c3,
                                 long2 l2) {
    uint l = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
    float x = in[l];
    int k = (int) l - 40;
    __global uint *o = out + l * 32;
    o[0] = __builtin_bit_cast(uint, x * f2.x + f2.y);
    o[1] = (uint) (k * i3.x + i3.y * 3 - i3.z);
    o[2] = (uint) (i3.x + i3.y + i3.z + k);
    o[3] = __builtin_bit_cast(uint, x * f4.x - f4.y);
    o[4] = __builtin_bit_cast(uint, x * f4.z + f4.w);
    o[5] = (uint) u4.x | (uint) u4.y << 8 | (uint) (uchar) (u4.z + l) << 16 | (uint) u4.w << 24;
    o[6] = (uint) (p.a * k);
    o[7] = __builtin_bit_cast(uint, p.b * x);
    o[8] = (uint) (p.c + k);
    for (int j = 0; j < 8; j++) {
        o[9 + j] = (uint) u8[j] * (uint) (l + 1);
    }
    o[17] = (uint) (t.a * k);
    o[18] = (uint) __builtin_bit_cast(ulong, t.d * (double) x);
    o[19] = (uint) (__builtin_bit_cast(ulong, t.d * (double) x) >> 32);
    o[20] = (uint) t.s + l;
    o[21] = (uint) __builtin_bit_cast(ulong, d2.x * (double) x + d2.y);
    o[22] = (uint) (__builtin_bit_cast(ulong, d2.x * (double) x + d2.y) >> 32);
    half hx = (half) x;
    o[23] = (uint) __builtin_bit_cast(ushort, hx * h4.x + h4.y) | (uint) __builtin_bit_cast(ushort, hx * h4.z - h4.w) << 16;
    o[24] = (uint) (c3.x * k) ^ (uint) (c3.y + c3.z) << 16;
    o[25] = (uint) (l2.x * k);
    o[26] = (uint) ((l2.x * k) >> 32);
    o[27] = (uint) (l2.y + k);
    o[28] = (uint) sizeof(int3) + (uint) sizeof(char3) * 100;
    o[29] = __builtin_bit_cast(uint, f2.x + f2.y + f4.x + f4.y + f4.z + f4.w);
    o[30] = (uint) (u8.s7 + u8.s0) ^ (uint) p.c << 20;
    o[31] = (uint) (t.a + t.s) * 3u;
}
