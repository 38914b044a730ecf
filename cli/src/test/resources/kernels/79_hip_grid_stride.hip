//! kernel saxpy_grid_stride
//! groups 4 size 64
//! arg u32 1000
//! arg f32 2.5
//! arg buffer f32 1000 unit 88
//! arg buffer f32 1000 unit 89
// HIP's grid-stride loop: blockIdx, blockDim, threadIdx, gridDim; y = a * x + y over more elements than threads.
// Exact (no contraction).
__global__ void saxpy_grid_stride(unsigned n, float a, const float *x, float *y) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}
