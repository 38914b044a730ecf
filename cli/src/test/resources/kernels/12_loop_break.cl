//! kernel loop_break
//! groups 2 size 64
//! arg buffer u32 128 rand 22
//! arg zeros 512
// Data-dependent loops with break and continue (Collatz steps, capped).
__kernel void loop_break(__global const uint *a, __global uint *out) {
    uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
    uint x = (a[i] & 0xffff) + 1;
    uint steps = 0;
    for (uint k = 0; k < 500; k++) {
        if (x == 1) break;
        if (k % 97 == 96) continue;
        x = (x & 1) ? 3 * x + 1 : x / 2;
        steps++;
    }
    out[i] = steps;
}
