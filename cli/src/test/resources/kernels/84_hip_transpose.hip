//! kernel transpose
//! groups 2,2 size 16,16
//! arg buffer u32 1024 index
//! arg zeros 4096
//! arg u32 32
// A tiled transpose (the HIP and CUDA samples): a 16x17 __shared__ tile (padded against bank conflicts), dim3
// indexing in two dimensions, __syncthreads between the coalesced read and write. Exact.
#define TILE 16
__global__ void transpose(const unsigned *in, unsigned *out, unsigned n) {
    __shared__ unsigned tile[TILE][TILE + 1];
    dim3 b = blockIdx, t = threadIdx;
    unsigned x = b.x * TILE + t.x, y = b.y * TILE + t.y;
    tile[t.y][t.x] = in[y * n + x] * 3u + 1u;
    __syncthreads();
    unsigned tx = b.y * TILE + t.x, ty = b.x * TILE + t.y;
    out[ty * n + tx] = tile[t.x][t.y];
}
