// A block reduction as HIP programs write it: each thread loads one int, the wave sums with __shfl_down, the
// waves' partial sums meet in __shared__ memory after __syncthreads, and thread 0 adds the block's sum to the
// total with atomicAdd and stores it in the block's slot.
__global__ void block_reduce(const int *in, int *out) {
    __shared__ int partial[32];
    unsigned t = threadIdx.x;
    int v = in[blockIdx.x * blockDim.x + t];
    for (int off = warpSize / 2; off > 0; off /= 2)
        v += __shfl_down(v, off);
    if (__lane_id() == 0)
        partial[t / warpSize] = v;
    __syncthreads();
    if (t == 0) {
        int sum = 0;
        for (unsigned w = 0; w < blockDim.x / warpSize; w++)
            sum += partial[w];
        atomicAdd(&out[0], sum);
        out[1 + blockIdx.x] = sum;
    }
}
