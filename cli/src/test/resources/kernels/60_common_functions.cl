//! kernel common_functions
//! library
//! groups 2 size 64
//! arg buffer f32 128 unit 60
//! arg buffer f32 512 unit 61
//! arg zeros 8192
//! tolerance f32 2
// OpenCL C's common functions on scalars and float4: clamp, mix, step, smoothstep, sign, degrees, radians,
// fmin/fmax, floor/ceil/round/trunc, fabs, copysign, mad. Exact but for smoothstep and the angle conversions
// (the device library may fuse their multiply-adds): 2 ulps.
kernel void common_functions(global const float *a, global const float4 *v, global float *out) {
    size_t i = get_global_id(0);
    float x = a[i];
    float4 w = v[i];
    global float *o = out + i * 16;
    o[0] = clamp(x, -0.25f, 0.5f);
    o[1] = mix(x, 1.0f, 0.25f);
    o[2] = step(0.0f, x);
    o[3] = smoothstep(-0.5f, 0.5f, x);
    o[4] = sign(x);
    o[5] = degrees(x);
    o[6] = radians(x * 90.0f);
    o[7] = fmin(x, w.x) + fmax(x, w.y);
    o[8] = floor(x * 10.0f) + ceil(x * 3.0f);
    o[9] = round(x * 7.0f) - trunc(x * 5.0f);
    o[10] = fabs(x) * copysign(2.0f, w.z);
    float4 c = clamp(w, -0.5f, 0.5f) + mix(w, (float4)(1.0f), 0.5f) + step((float4)(0.0f), w);
    o[11] = c.x;
    o[12] = c.y;
    o[13] = c.z + c.w;
    o[14] = mad(x, w.w, 0.5f);
    o[15] = max(x, w.x) - min(x, w.w);
}
