//! kernel stencil_2d
//! library
//! groups 4,4 size 8,8
//! arg buffer f32 1024 unit 80
//! arg zeros 4096
//! arg u32 32
//! arg u32 32
// A 5-point Jacobi stencil over a 32x32 grid in a 2-D dispatch: a (8+2)x(8+2) __local tile with its halo, loaded
// with clamped indices (clamp), a barrier, then the weighted sum. Exact.
kernel void stencil_2d(global const float *in, global float *out, uint w, uint h) {
    local float tile[10][10];
    int lx = get_local_id(0), ly = get_local_id(1);
    int gx = get_global_id(0), gy = get_global_id(1);
    for (int k = ly * 8 + lx; k < 100; k += 64) {
        int tx = k % 10, ty = k / 10;
        int sx = clamp((int) get_group_id(0) * 8 + tx - 1, 0, (int) w - 1);
        int sy = clamp((int) get_group_id(1) * 8 + ty - 1, 0, (int) h - 1);
        tile[ty][tx] = in[sy * w + sx];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    float c = tile[ly + 1][lx + 1];
    float n = tile[ly][lx + 1], s = tile[ly + 2][lx + 1], e = tile[ly + 1][lx + 2], wv = tile[ly + 1][lx];
    out[gy * w + gx] = 0.5f * c + 0.125f * (n + s + e + wv);
}
