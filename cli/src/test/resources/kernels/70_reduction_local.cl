//! kernel reduction_local
//! library
//! groups 4 size 128
//! arg buffer f32 2048 unit 78
//! arg zeros 16
//! arg local 512
// A parallel sum as the vendor samples write it: each work-item loads a float4 and sums it, a tree reduction in a
// __local buffer passed as an argument (halving strides, a barrier each), one result per group. Exact (the order of
// additions is the program's, the same on both sides).
kernel void reduction_local(global const float4 *in, global float *out, local float *scratch) {
    size_t l = get_local_id(0);
    float4 v = in[get_global_id(0)];
    scratch[l] = (v.x + v.y) + (v.z + v.w);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (l < s) scratch[l] += scratch[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) out[get_group_id(0)] = scratch[0];
}
