//! kernel escape_time
//! library
//! groups 4,2 size 8,8
//! arg zeros 2048
//! arg u32 32
//! arg u32 16
//! arg u32 200
// The kernel of the issue: (uint *out, uint w, uint h, uint maxit), an escape-time fractal. At -O2 clang-19 reads
// the three scalars, bytes 8 to 20 of the kernarg segment, with one s_load_dwordx4 (bytes 8 to 24): the capture's
// kernarg range must hold what the runtime's allocation holds there. Exact (no contraction on either side).
kernel void escape_time(global uint *out, uint w, uint h, uint maxit) {
    // ids from the builtins, as a HIP-minded author writes them: no hidden arguments, a 20-byte kernarg segment
    uint px = __builtin_amdgcn_workgroup_id_x() * 8 + __builtin_amdgcn_workitem_id_x();
    uint py = __builtin_amdgcn_workgroup_id_y() * 8 + __builtin_amdgcn_workitem_id_y();
    float cx = -2.0f + 3.0f * (float) px / (float) w;
    float cy = -1.0f + 2.0f * (float) py / (float) h;
    float zx = 0.0f, zy = 0.0f;
    uint it = 0;
    while (it < maxit && zx * zx + zy * zy < 4.0f) {
        float t = zx * zx - zy * zy + cx;
        zy = 2.0f * zx * zy + cy;
        zx = t;
        it++;
    }
    out[py * w + px] = it;
}
