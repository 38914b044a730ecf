//! kernel mandelbrot
//! groups 2,2 size 8,8
//! arg f32 0.0625
//! arg zeros 1024
// Escape-time iteration with a data-dependent break (float loop).
__kernel void mandelbrot(float step, __global uint *out) {
    uint x = __builtin_amdgcn_workgroup_id_x() * 8 + __builtin_amdgcn_workitem_id_x();
    uint y = __builtin_amdgcn_workgroup_id_y() * 8 + __builtin_amdgcn_workitem_id_y();
    float cr = -2.0f + (float) x * step * 3.0f, ci = -1.0f + (float) y * step * 2.0f;
    float zr = 0.0f, zi = 0.0f;
    uint n = 0;
    for (; n < 200; n++) {
        float zr2 = zr * zr, zi2 = zi * zi;
        if (zr2 + zi2 > 4.0f) break;
        zi = 2.0f * zr * zi + ci;
        zr = zr2 - zi2 + cr;
    }
    out[y * 16 + x] = n;
}
