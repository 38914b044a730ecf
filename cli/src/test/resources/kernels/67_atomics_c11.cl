//! kernel atomics_c11
//! library
//! groups 4 size 64
//! arg buffer u32 256 rand 73
//! arg zeros 1024
// OpenCL 2.0 atomics as C11 writes them: atomic_uint and atomic_int in __local memory, atomic_init,
// atomic_fetch_add_explicit with memory orders and scopes, atomic_fetch_max, atomic_fetch_or, atomic_load,
// atomic_store, atomic_compare_exchange_strong_explicit; one group's result per group. Exact.
kernel void atomics_c11(global const uint *in, global uint *out) {
    local atomic_uint sum;
    local atomic_int mx;
    local atomic_uint bits;
    local atomic_uint claim;
    size_t l = get_local_id(0);
    uint x = in[get_global_id(0)];
    if (l == 0) {
        atomic_init(&sum, 0u);
        atomic_init(&mx, -2147483647 - 1);
        atomic_init(&bits, 0u);
        atomic_init(&claim, 0u);
    }
    work_group_barrier(CLK_LOCAL_MEM_FENCE);
    atomic_fetch_add_explicit(&sum, x & 0xff, memory_order_relaxed, memory_scope_work_group);
    atomic_fetch_max_explicit(&mx, (int) x, memory_order_relaxed, memory_scope_work_group);
    atomic_fetch_or(&bits, 1u << (x % 32));
    uint expected = 0;
    int won = atomic_compare_exchange_strong_explicit(&claim, &expected, 1u, memory_order_acq_rel,
                                                      memory_order_relaxed, memory_scope_work_group);
    work_group_barrier(CLK_LOCAL_MEM_FENCE);
    global uint *o = out + get_group_id(0) * 64;
    // which work-item won the claim is the scheduler's choice; that exactly one did is not
    if (won) atomic_fetch_add(&sum, 1000000u);
    o[l] = atomic_load(&claim) + (uint) l;
    work_group_barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        o[0] = atomic_load(&sum);
        o[1] = (uint) atomic_load_explicit(&mx, memory_order_acquire, memory_scope_work_group);
        o[2] = atomic_load(&bits);
        atomic_store(&claim, 5u);
        o[3] = atomic_load(&claim);
    }
}
