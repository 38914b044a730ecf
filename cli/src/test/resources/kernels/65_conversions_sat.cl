//! kernel conversions_sat
//! library
//! groups 2 size 64
//! arg buffer f32 128 rand 70
//! arg buffer i32 128 rand 71
//! arg zeros 8192
// Conversions with saturation and rounding modes: float to int, uchar, short, uint (saturated; _rte, _rtz, _rtp,
// _rtn), integers narrowed with and without _sat, vectors, int to float, as_type reinterpretation. Exact.
kernel void conversions_sat(global const float *a, global const int *b, global int *out) {
    size_t i = get_global_id(0);
    float x = a[i] * 3.7f;
    int k = b[i];
    global int *o = out + i * 16;
    o[0] = convert_int_sat_rte(x * 1e7f);
    o[1] = convert_int_rtz(x) + convert_int_rtp(x) * 1000 + convert_int_rtn(x) * 1000000;
    o[2] = convert_uchar_sat(x) | convert_uchar_sat_rte(x * 0.5f) << 8 | convert_char_sat(x) << 16;
    o[3] = convert_short_sat(x * 1000.0f);
    o[4] = (int) convert_uint_sat(x * 3e7f);
    o[5] = convert_int(x);
    o[6] = convert_uchar(k) | convert_uchar_sat(k) << 8 | convert_ushort_sat(k >> 8) << 16;
    o[7] = convert_short_sat(k) + convert_char_sat(k >> 20);
    float4 v = (float4)(x, -x, x * 100.0f, x * 1e6f);
    int4 r = convert_int4_sat_rte(v);
    o[8] = r.x ^ r.y;
    o[9] = r.z ^ r.w;
    uchar4 c = convert_uchar4_sat(v);
    o[10] = as_int(c);
    short4 s = convert_short4_sat_rtn(v);
    o[11] = s.x + s.y + s.z + s.w;
    o[12] = as_int(convert_float(k)) ^ as_int(convert_float(k >> 7));
    o[13] = as_int(convert_float4(r).w);
    o[14] = (int) convert_long_sat(x * 1e12f);
    o[15] = as_int((float) k * 0.5f);
}
