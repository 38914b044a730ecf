//! kernel histogram_local
//! library
//! groups 4 size 256
//! arg buffer u8 4096 rand 79
//! arg zeros 1024
// A 256-bin histogram (Rodinia/SHOC style): a __local histogram cleared by the group, atomic_inc per byte of a
// uchar4 load, a barrier, then atomic_add of each bin into the global histogram. Exact.
kernel void histogram_local(global const uchar4 *data, global uint *hist) {
    local uint bins[256];
    size_t l = get_local_id(0);
    bins[l] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uchar4 d = data[get_global_id(0)];
    atomic_inc(&bins[d.x]);
    atomic_inc(&bins[d.y]);
    atomic_inc(&bins[d.z]);
    atomic_inc(&bins[d.w]);
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(&hist[l], bins[l]);
}
