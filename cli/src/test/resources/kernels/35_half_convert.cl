//! kernel half_convert
//! groups 1 size 64
//! arg buffer f32 64 rand 53
//! arg buffer f64 64 unit 54
//! arg zeros 1536
// Conversions to and from half: float and double to half rounded to nearest even (ties, overflow to
// infinity, results in the half subnormal range), float to half toward zero (v_cvt_pkrtz), half to float,
// double and integers and back, and half compares on converted values.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half half2_t __attribute__((ext_vector_type(2)));

static float scaled(uint i, float x) {
    switch (i % 8) {
    case 0: return x * 1000.0f;              // beyond 65504 for |x| > 65.5
    case 1: return x * 1.0e-6f;              // half subnormals
    case 2: return x * 1.0e-9f;              // underflow to zero
    case 3: return (float) (int) x + 0.5f / 1024.0f * (float) (i & 3); // ties near integers
    case 4: return 2048.0f + (float) (i & 7); // ties between half integers above 2048
    case 5: return -x / 64.0f;
    default: return x;
    }
}

__kernel void half_convert(__global const float *a, __global const double *b, __global uint *out) {
    uint i = __builtin_amdgcn_workitem_id_x();
    float f = scaled(i, a[i]);
    double d = b[i] * (double) (1 << (i & 15)) * ((i & 16) ? 1.0e-5 : 3.0);
    __global uint *o = out + i * 6;
    half h = (half) f;
    half hd = (half) d;
    o[0] = (uint) __builtin_bit_cast(ushort, h) | (uint) __builtin_bit_cast(ushort, hd) << 16;
    half2_t rtz = __builtin_amdgcn_cvt_pkrtz(f, (float) d);
    o[1] = __builtin_bit_cast(uint, rtz);
    o[2] = __builtin_bit_cast(uint, (float) h);
    double back = (double) hd;
    o[3] = (uint) (__builtin_bit_cast(ulong, back) >> 29);
    short s = (short) (i * 1237u);
    half hs = (half) s;
    int hi = __builtin_isfinite((float) h) && __builtin_fabsf((float) h) < 30000.0f ? (int) h : 77;
    o[4] = (uint) __builtin_bit_cast(ushort, hs) | (uint) (ushort) (short) hi << 16;
    o[5] = (h < hd) | (h == hd) << 1 | (h >= hs) << 2 | ((half) (h * hd) > (half) 1.0f) << 3;
}
