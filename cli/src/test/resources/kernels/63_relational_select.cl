//! kernel relational_select
//! library
//! groups 2 size 64
//! arg buffer f32 512 rand 66
//! arg buffer i32 128 rand 67
//! arg zeros 4096
// Relational functions on scalars (0 or 1) and vectors (0 or -1): isnan, isinf, isfinite, signbit, isless, isequal,
// select, bitselect, any, all; with NaN and infinity made from the input. Exact.
kernel void relational_select(global const float4 *v, global const int *m, global int *out) {
    size_t i = get_global_id(0);
    float4 x = v[i];
    int k = m[i];
    if ((k & 7) == 1) x.y = NAN;
    if ((k & 7) == 2) x.z = INFINITY;
    if ((k & 7) == 3) x.w = -INFINITY;
    global int *o = out + i * 8;
    int4 n = isnan(x), f = isfinite(x), s = signbit(x);
    o[0] = n.x + n.y * 2 + n.z * 4 + n.w * 8;
    o[1] = f.x + f.y * 2 + f.z * 4 + f.w * 8 + s.w * 16 + s.x * 32;
    o[2] = isinf(x.z) + isnan(x.y) * 2 + isless(x.x, x.w) * 4 + isequal(x.x, x.x) * 8 + isgreater(x.y, 0.0f) * 16;
    int4 lt = isless(x, (float4)(0.0f));
    float4 sel = select(x, -x, lt);
    o[3] = as_int(sel.x) ^ as_int(sel.w);
    o[4] = any(lt) + all(lt) * 2 + any(n) * 4 + all(f) * 8;
    o[5] = as_int(bitselect(x.x, x.z, as_float(k))); // not x.y: a NaN's payload is the compiler's to choose
    int4 iv = (int4)(k, k >> 3, k >> 7, -k);
    o[6] = select(iv, (int4)(7), iv > 0).w + select(1, 2, k < 0) + any(iv) * 10;
    o[7] = isordered(x.x, x.y) + isunordered(x.y, x.z) * 2 + islessgreater(x.x, x.z) * 4;
}
