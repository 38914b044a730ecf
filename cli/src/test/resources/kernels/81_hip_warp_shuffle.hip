//! kernel warp_reduce
//! groups 2 size 128
//! arg buffer i32 256 small 91
//! arg zeros 4096
// Warp-level primitives: a __shfl_down reduction over warpSize lanes (32 or 64: the wave size of the build), a
// __shfl_xor butterfly, __shfl from lane 0, __ballot with __popcll, __any and __all, __lane_id. Every lane calls
// them (converged). Exact.
__global__ void warp_reduce(const int *in, int *out) {
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[g];
    int sum = v;
    for (int off = warpSize / 2; off > 0; off /= 2)
        sum += __shfl_down(sum, off);
    int bfly = v;
    for (int m = 1; m < warpSize; m <<= 1)
        bfly = max(bfly, __shfl_xor(bfly, m));
    int first = __shfl(v, 0);
    unsigned long long mask = __ballot(v > 0);
    int *o = out + g * 4;
    o[0] = __lane_id() == 0 ? sum : -1;
    o[1] = bfly;
    o[2] = first + __shfl_up(v, 1);
    o[3] = __popcll(mask) + 100 * __any(v > 40) + 1000 * __all(v > -100);
}
