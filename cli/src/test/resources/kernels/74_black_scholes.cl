//! kernel black_scholes
//! library
//! groups 2 size 64
//! arg buffer f32 128 pos 82
//! arg buffer f32 128 pos 83
//! arg zeros 1024
// Black-Scholes option pricing (the CUDA/OpenCL SDK sample): log, sqrt, exp and the cumulative normal's polynomial
// with fabs and a select. exp and log are 3 ulps each in OpenCL (ocml meets that), sqrt 3; the formula compounds
// them through subtractions: compared within 256 ulps.
//! tolerance f32 256
inline float cnd(float d) {
    const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f, A4 = -1.821255978f, A5 = 1.330274429f;
    float k = 1.0f / (1.0f + 0.2316419f * fabs(d));
    float c = 0.39894228040143267794f * exp(-0.5f * d * d) * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
    return d > 0 ? 1.0f - c : c;
}
kernel void black_scholes(global const float *price, global const float *strike, global float *out) {
    size_t i = get_global_id(0);
    float s = price[i] * 10.0f + 5.0f, x = strike[i] * 10.0f + 5.0f, t = 0.5f + (i & 7) * 0.25f;
    const float r = 0.02f, v = 0.30f;
    float sq = sqrt(t);
    float d1 = (log(s / x) + (r + 0.5f * v * v) * t) / (v * sq);
    float d2 = d1 - v * sq;
    float e = exp(-r * t);
    out[i * 2] = s * cnd(d1) - x * e * cnd(d2) + 1.0f;
    out[i * 2 + 1] = x * e * (1.0f - cnd(d2)) - s * (1.0f - cnd(d1)) + 1.0f;
}
