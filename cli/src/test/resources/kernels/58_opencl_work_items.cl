//! kernel opencl_work_items
//! groups 3,2 size 16,4
//! arg buffer f32 384 unit 58
//! arg local 256
//! arg zeros 24576
//! arg zeros 24
// A kernel written as OpenCL C is usually written: get_global_id, get_local_id, get_group_id, get_local_size,
// get_num_groups, get_global_size, get_work_dim, the linear ids, out-of-range dimensions (ids 0, sizes 1)
// and barrier(CLK_LOCAL_MEM_FENCE) around a reduction in a __local argument. The device build takes them
// from include/replay-cl.h (no device library under -nogpulib), the native build from the same file.
__kernel void opencl_work_items(__global const float *in, __local float *tile, __global uint *ids,
                                __global float *sums) {
    size_t gx = get_global_id(0), gy = get_global_id(1);
    size_t w = get_global_size(0);
    size_t g = get_global_linear_id();
    size_t l = get_local_linear_id();
    __global uint *o = ids + 16 * g;
    o[0] = (uint) gx;
    o[1] = (uint) gy;
    o[2] = (uint) get_global_id(2);
    o[3] = (uint) (get_local_id(0) | get_local_id(1) << 8 | get_local_id(2) << 16);
    o[4] = (uint) (get_group_id(0) | get_group_id(1) << 8 | get_group_id(2) << 16);
    o[5] = (uint) (get_local_size(0) | get_local_size(1) << 8 | get_local_size(2) << 16);
    o[6] = (uint) (get_num_groups(0) | get_num_groups(1) << 8 | get_num_groups(2) << 16);
    o[7] = (uint) (w | get_global_size(1) << 12 | get_global_size(2) << 24);
    o[8] = get_work_dim();
    o[9] = (uint) (get_global_id(3) + get_local_id(7) + get_group_id(3));
    o[10] = (uint) (get_local_size(3) * 100 + get_num_groups(4) * 10 + get_global_size(5));
    o[11] = (uint) (get_global_offset(0) + get_global_offset(1));
    o[12] = (uint) g;
    o[13] = (uint) l;
    o[14] = (uint) (gy * w + gx);
    o[15] = (uint) get_enqueued_local_size(1);
    // a tree reduction of the group's inputs in the __local argument, barriers between the steps
    size_t n = get_local_size(0) * get_local_size(1);
    tile[l] = in[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = n / 2; s > 0; s >>= 1) {
        if (l < s) {
            tile[l] += tile[l + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) {
        sums[get_group_id(1) * get_num_groups(0) + get_group_id(0)] = tile[0];
    }
    work_group_barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    mem_fence(CLK_GLOBAL_MEM_FENCE);
}
