//! kernel hip_histogram
//! groups 4 size 256
//! arg buffer u8 2048 rand 93
//! arg zeros 1024
//! arg zeros 32
// A byte histogram in HIP: a __shared__ histogram, atomicAdd per byte, __syncthreads, atomicAdd into the global
// one; per block, atomicInc (wrapping at 15) and atomicCAS in shared memory, atomicOr of seen bits. Exact.
__global__ void hip_histogram(const unsigned char *data, unsigned *hist, unsigned *per_block) {
    __shared__ unsigned bins[256];
    __shared__ unsigned wrap, cas;
    unsigned t = threadIdx.x;
    bins[t] = 0;
    if (t == 0) { wrap = 0; cas = 0; }
    __syncthreads();
    unsigned idx = blockIdx.x * blockDim.x + t;
    unsigned char a = data[idx * 2], b = data[idx * 2 + 1];
    atomicAdd(&bins[a], 1u);
    atomicAdd(&bins[b], 1u);
    atomicInc(&wrap, 15u);
    atomicCAS(&cas, 0u, 1u);
    __syncthreads();
    atomicAdd(&hist[t], bins[t]);
    if (t == 0) {
        per_block[blockIdx.x] = wrap + 100 * cas;
        atomicOr(&per_block[4], 1u << blockIdx.x);
    }
}
