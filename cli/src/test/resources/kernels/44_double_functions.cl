//! kernel double_functions
//! groups 1 size 64
//! arg buffer f64 64 rand 69
//! arg buffer i64 64 rand 70
//! arg zeros 8192
// f64 division and square root (IEEE, correctly rounded: the device's scale/fmas/fixup and rsq-Newton
// sequences must land on the same bits), rounding to integral values, frexp/ldexp, min/max, and
// conversions between double and 32/64-bit signed and unsigned integers and float (ties included).
static double special(uint i, double x) {
    switch (i % 16) {
    case 0: return 0.5;
    case 1: return -2.5;
    case 2: return 4503599627370495.5;
    case 3: return -0.0;
    case 4: return 1.0e-310;
    case 5: return x * 1.0e300;
    case 6: return 3.0000000000000004;
    case 7: return x * 1.0e-300;
    case 8: return 1.0 + 0x1p-24 + 0x1p-30;   // a float tie-breaker above the halfway point
    case 9: return 1.0 + 0x1p-24;             // exactly halfway between two floats
    default: return x;
    }
}

__kernel void double_functions(__global const double *a, __global const long *b, __global ulong *out) {
    uint i = __builtin_amdgcn_workitem_id_x();
    double x = special(i, a[i]);
    double y = a[(i * 7 + 5) & 63];
    long n = b[i];
    __global ulong *o = out + i * 16;
    o[0] = __builtin_bit_cast(ulong, x / y);
    o[1] = __builtin_bit_cast(ulong, 1.0 / x);
    o[2] = __builtin_bit_cast(ulong, __builtin_sqrt(__builtin_fabs(x)));
    o[3] = __builtin_bit_cast(ulong, __builtin_floor(x)) ^ __builtin_bit_cast(ulong, __builtin_ceil(y));
    o[4] = __builtin_bit_cast(ulong, __builtin_trunc(x)) + __builtin_bit_cast(ulong, __builtin_rint(x));
    o[5] = __builtin_bit_cast(ulong, __builtin_round(x));
    int e = 0;
    double m = __builtin_frexp(x, &e);
    o[6] = __builtin_bit_cast(ulong, m) ^ (ulong) (uint) e << 40;
    o[7] = __builtin_bit_cast(ulong, __builtin_ldexp(y, (int) (n % 1100)));
    o[8] = __builtin_bit_cast(ulong, __builtin_fmin(x, y)) - __builtin_bit_cast(ulong, __builtin_fmax(x, -y));
    double xs = __builtin_fabs(x) < 1.0e15 ? x * 1000.0 : 1.0;
    o[9] = (ulong) (long) xs ^ (ulong) (__builtin_fabs(y) * 1.0e15);
    o[10] = __builtin_bit_cast(ulong, (double) n) + __builtin_bit_cast(ulong, (double) (ulong) n);
    o[11] = __builtin_bit_cast(ulong, (double) (int) n) ^ __builtin_bit_cast(ulong, (double) (uint) n) << 1;
    o[12] = (ulong) __builtin_bit_cast(uint, (float) x) | (ulong) __builtin_bit_cast(uint, (float) n) << 32;
    o[13] = (ulong) (uint) (int) (y * 1.0e6) | (ulong) (uint) __builtin_fabs(y * 1.0e7) << 32;
    o[14] = __builtin_bit_cast(ulong, x * y + 1.0) ^ __builtin_bit_cast(ulong, __builtin_fma(x, y, -x));
    o[15] = __builtin_bit_cast(ulong, (double) (float) y + (double) (ulong) (n & 0x7fffffffffffffff));
}
