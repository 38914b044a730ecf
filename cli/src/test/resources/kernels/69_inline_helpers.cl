//! kernel inline_helpers
//! library
//! groups 2 size 64
//! arg buffer f32 128 unit 76
//! arg buffer i32 128 small 77
//! arg zeros 2048
// Helpers as people write them: C99 `inline` (not static: an inline definition only, which clang does not emit at
// -O0; capture build --source and native-run build with -fgnu89-inline, so the call links), `static inline`, a
// plain function with a loop, a helper taking a __global pointer and one returning a vector. Exact.
inline float lerp(float a, float b, float t) { return a + (b - a) * t; }
static inline int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
int gcd(int a, int b) {
    while (b != 0) { int t = a % b; a = b; b = t; } // OpenCL C has no recursion
    return a;
}
inline float4 swizzle(float4 v) { return v.wzyx * (float4)(1.0f, 2.0f, 3.0f, 4.0f); }
float accumulate(global const float *p, int n) {
    float s = 0.0f;
    for (int k = 0; k < n; k++) s += p[k];
    return s;
}
kernel void inline_helpers(global const float *a, global const int *b, global float *out) {
    size_t i = get_global_id(0);
    float x = a[i];
    int k = b[i];
    global float *o = out + i * 4;
    o[0] = lerp(x, 1.0f, 0.25f);
    o[1] = (float) clampi(k, -20, 20) + (float) gcd(abs(k) + 1, 12);
    float4 s = swizzle((float4)(x, x + 1.0f, x * 2.0f, -x));
    o[2] = s.x + s.y * s.z - s.w;
    o[3] = accumulate(a + (i & ~7), 8);
}
