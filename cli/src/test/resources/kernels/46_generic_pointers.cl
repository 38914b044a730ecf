//! kernel generic_pointers
//! groups 2 size 64
//! arg buffer u32 128 rand 72
//! arg zeros 4160
// OpenCL 2.0 generic pointers: one non-inlined function reads, writes and updates atomically through a
// pointer that points into global, local or private memory depending on the call (FLAT instructions, the
// address deciding the aperture), plus to_global-style address tests done by the callee.
__attribute__((noinline)) static uint update(uint *p, uint n, uint x) {
    uint s = 0;
    for (uint k = 0; k < n; k++) {
        s += p[k] * (k + 1);
        p[k] = s ^ x;
    }
    return s;
}

__attribute__((noinline)) static void bump(uint *p, uint x) {
    __atomic_fetch_add(p, x, __ATOMIC_RELAXED);
}

__attribute__((noinline)) static ushort narrow(ushort *p, uchar *q) {
    p[1] = (ushort) (p[0] + q[3]);
    q[0] = (uchar) (q[1] ^ q[2]);
    return p[1];
}

__kernel void generic_pointers(__global uint *a, __global uint *out) {
    __local uint shared[64 * 4];
    __local uint counter;
    uint l = __builtin_amdgcn_workitem_id_x();
    uint g = __builtin_amdgcn_workgroup_id_x();
    uint i = g * 64 + l;
    uint x = a[i];
    uint priv[6];
    for (uint k = 0; k < 6; k++) priv[k] = x >> k;
    for (uint k = 0; k < 4; k++) shared[l * 4 + k] = x + k;
    if (l == 0) counter = 0;
    __builtin_amdgcn_s_barrier();
    __global uint *o = out + i * 8;
    o[0] = update(priv, 2 + (x & 3), x);            // private
    o[1] = update(&shared[l * 4], 4, x);             // local
    o[2] = update(&a[i], 1, x);                      // global (the lane's own word)
    o[3] = priv[0] + priv[1] + priv[5] + shared[l * 4 + 3];
    bump(&counter, x & 0xff);
    bump(&out[1024 + g], x >> 24);
    uint u[2];
    u[0] = x; u[1] = ~x;
    o[4] = narrow((ushort *) &u[0], (uchar *) &u[1]) | (uint) narrow((ushort *) &shared[l * 4], (uchar *) &shared[l * 4 + 1]) << 16;
    o[5] = u[0] ^ u[1];
    __builtin_amdgcn_s_barrier();
    o[6] = counter;
    o[7] = shared[((l + 1) & 63) * 4] ^ shared[l * 4 + 1];
}
