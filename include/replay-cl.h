/*
 * replay-cl.h: the OpenCL C work-item and synchronisation functions for kernels built without a device
 * library (clang-19 -nogpulib, as replay capture build takes them), defined over clang's amdgcn builtins.
 *
 *   clang-19 -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=gfx1030 -nogpulib -include include/replay-cl.h ...
 *
 * Without it a call to get_global_id and its kin stays an undefined symbol, which replay capture build
 * refuses. replay capture native-run includes the same file after its prelude, so the native build of the
 * source reads the same values. Dispatches are whole groups with no global offset (as replay capture
 * build makes them): get_global_offset is 0 and get_enqueued_local_size is get_local_size.
 * Out-of-range dimensions give what OpenCL C says: 0 for ids and offsets, 1 for sizes and counts.
 */
#ifndef REPLAY_CL_H
#define REPLAY_CL_H

#ifdef __OPENCL_C_VERSION__
#define __REPLAY_CL_FN __attribute__((overloadable, always_inline, const))
#define __REPLAY_CL_SYNC __attribute__((overloadable, always_inline))
/* the dimensions: bits 1:0 of the dispatch packet's setup field (hsa_kernel_dispatch_packet_t, offset 2) */
#define __REPLAY_WORK_DIM() ((uint) (((__constant ushort *) __builtin_amdgcn_dispatch_ptr())[1] & 3u))
#else
/* the native harness (replay capture native-run): -D__REPLAY_DIMS=N gives the dispatch's dimensions */
#define __REPLAY_CL_FN static inline __attribute__((overloadable, unused))
#define __REPLAY_CL_SYNC static inline __attribute__((overloadable, unused))
#ifdef __REPLAY_DIMS
#define __REPLAY_WORK_DIM() ((uint) (__REPLAY_DIMS))
#else
#define __REPLAY_WORK_DIM() ((uint) (__replay_groups[2] * __replay_gsize[2] > 1 ? 3 \
        : __replay_groups[1] * __replay_gsize[1] > 1 ? 2 : 1))
#endif
#ifndef CLK_LOCAL_MEM_FENCE
#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2
#define CLK_IMAGE_MEM_FENCE 4
#endif
typedef unsigned int cl_mem_fence_flags;
#endif

__REPLAY_CL_FN uint get_work_dim(void) {
    return __REPLAY_WORK_DIM();
}

__REPLAY_CL_FN size_t get_local_id(uint d) {
    return d == 0 ? __builtin_amdgcn_workitem_id_x() : d == 1 ? __builtin_amdgcn_workitem_id_y()
            : d == 2 ? __builtin_amdgcn_workitem_id_z() : 0;
}

__REPLAY_CL_FN size_t get_group_id(uint d) {
    return d == 0 ? __builtin_amdgcn_workgroup_id_x() : d == 1 ? __builtin_amdgcn_workgroup_id_y()
            : d == 2 ? __builtin_amdgcn_workgroup_id_z() : 0;
}

__REPLAY_CL_FN size_t get_local_size(uint d) {
    return d == 0 ? __builtin_amdgcn_workgroup_size_x() : d == 1 ? __builtin_amdgcn_workgroup_size_y()
            : d == 2 ? __builtin_amdgcn_workgroup_size_z() : 1;
}

__REPLAY_CL_FN size_t get_enqueued_local_size(uint d) {
    return get_local_size(d);
}

__REPLAY_CL_FN size_t get_global_size(uint d) {
    return d == 0 ? __builtin_amdgcn_grid_size_x() : d == 1 ? __builtin_amdgcn_grid_size_y()
            : d == 2 ? __builtin_amdgcn_grid_size_z() : 1;
}

__REPLAY_CL_FN size_t get_num_groups(uint d) {
    return d < 3 ? get_global_size(d) / get_local_size(d) : 1;
}

__REPLAY_CL_FN size_t get_global_offset(uint d) {
    return 0;
}

__REPLAY_CL_FN size_t get_global_id(uint d) {
    return d < 3 ? get_group_id(d) * get_local_size(d) + get_local_id(d) : 0;
}

__REPLAY_CL_FN size_t get_local_linear_id(void) {
    return (get_local_id(2) * get_local_size(1) + get_local_id(1)) * get_local_size(0) + get_local_id(0);
}

__REPLAY_CL_FN size_t get_global_linear_id(void) {
    return (get_global_id(2) * get_global_size(1) + get_global_id(1)) * get_global_size(0) + get_global_id(0);
}

#ifdef __OPENCL_C_VERSION__
/* a workgroup-scope release before and acquire after s_barrier, as the OpenCL memory model asks of barrier */
__REPLAY_CL_SYNC void barrier(cl_mem_fence_flags flags) {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

__REPLAY_CL_SYNC void work_group_barrier(cl_mem_fence_flags flags) {
    barrier(flags);
}

__REPLAY_CL_SYNC void mem_fence(cl_mem_fence_flags flags) {
    __builtin_amdgcn_fence(__ATOMIC_ACQ_REL, "workgroup");
}

__REPLAY_CL_SYNC void read_mem_fence(cl_mem_fence_flags flags) {
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

__REPLAY_CL_SYNC void write_mem_fence(cl_mem_fence_flags flags) {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
}
#else
/* the harness's barrier is a pthread barrier, itself a full fence */
__REPLAY_CL_SYNC void barrier(cl_mem_fence_flags flags) {
    __builtin_amdgcn_s_barrier();
}

__REPLAY_CL_SYNC void work_group_barrier(cl_mem_fence_flags flags) {
    __builtin_amdgcn_s_barrier();
}

__REPLAY_CL_SYNC void mem_fence(cl_mem_fence_flags flags) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

__REPLAY_CL_SYNC void read_mem_fence(cl_mem_fence_flags flags) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

__REPLAY_CL_SYNC void write_mem_fence(cl_mem_fence_flags flags) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
#endif

#undef __REPLAY_CL_FN
#undef __REPLAY_CL_SYNC
#endif
