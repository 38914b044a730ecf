//! kernel block_sum
//! groups 4 size 128
//! arg buffer i32 512 small 90
//! arg zeros 64
// A block reduction as HIP code writes it: a __shared__ array, __syncthreads, halving strides, then atomicAdd of
// the block's sum into a global total and its own slot. Exact.
#define BLOCK 128
__global__ void block_sum(const int *in, int *out) {
    __shared__ int partial[BLOCK];
    unsigned t = threadIdx.x;
    partial[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s) partial[t] += partial[t + s];
        __syncthreads();
    }
    if (t == 0) {
        atomicAdd(&out[0], partial[0]);
        out[1 + blockIdx.x] = partial[0];
        atomicMax(&out[8], partial[0]);
        atomicMin(&out[9], partial[0]);
    }
}
