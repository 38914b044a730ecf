//! kernel scan_uint4
//! library
//! groups 2 size 64
//! arg buffer u32 512 rand 85
//! arg zeros 2048
// An inclusive prefix sum per group: each work-item scans its uint4 (vload4), a Hillis-Steele scan of the totals
// in __local memory (double-buffered, a barrier per step), then adds its prefix back (vstore4). Exact.
kernel void scan_uint4(global const uint *in, global uint *out) {
    local uint buf[2][64];
    size_t l = get_local_id(0), g = get_global_id(0);
    uint4 v = vload4(g, in) & (uint4)(0xffff);
    v.y += v.x;
    v.z += v.y;
    v.w += v.z;
    int cur = 0;
    buf[0][l] = v.w;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1; off < 64; off <<= 1) {
        uint t = buf[cur][l] + (l >= off ? buf[cur][l - off] : 0u);
        buf[cur ^ 1][l] = t;
        cur ^= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint before = l > 0 ? buf[cur][l - 1] : 0u;
    vstore4(v + before, g, out);
}
