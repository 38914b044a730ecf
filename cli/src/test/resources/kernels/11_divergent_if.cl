//! kernel divergent_if
//! groups 2 size 64
//! arg buffer i32 128 rand 21
//! arg zeros 512
// Divergent if/else on data and lane parity, nested.
__kernel void divergent_if(__global const int *a, __global int *out) {
    uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
    int x = a[i];
    int r;
    if (i & 1) {
        if (x > 0) r = x / 3 + 1; else r = -x;
    } else if (x & 4) {
        r = x * 5;
    } else {
        r = (x >> 2) ^ 0x55;
    }
    out[i] = r;
}
