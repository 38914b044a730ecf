//! kernel nested_loops
//! groups 1 size 32
//! arg buffer i32 256 small 23
//! arg zeros 128
// Nested loops with a trip count that depends on the lane.
__kernel void nested_loops(__global const int *m, __global int *out) {
    uint i = __builtin_amdgcn_workitem_id_x();
    int acc = 0;
    for (uint r = 0; r <= i % 8; r++)
        for (uint c = 0; c < 8; c++)
            acc += m[(r * 8 + c + i) & 255] * (int) (c + 1);
    out[i] = acc;
}
