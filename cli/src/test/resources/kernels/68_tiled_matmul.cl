//! kernel tiled_matmul
//! library
//! groups 2,2 size 16,16
//! arg buffer f32 1024 unit 74
//! arg buffer f32 1024 unit 75
//! arg zeros 4096
//! arg u32 32
// The tiled matrix multiply of every GPU course: 16x16 tiles of A and B in __local memory, a barrier per tile,
// sum += a * b. With -ffp-contract=off on both sides (capture build --source and native-run) the products and
// sums round one by one, so the result is exact (clang would otherwise fuse them into v_fmac_f32).
#define TILE 16
kernel void tiled_matmul(global const float *A, global const float *B, global float *C, uint n) {
    local float As[TILE][TILE];
    local float Bs[TILE][TILE];
    int tx = get_local_id(0), ty = get_local_id(1);
    int col = get_group_id(0) * TILE + tx, row = get_group_id(1) * TILE + ty;
    float sum = 0.0f;
    for (int t = 0; t < n / TILE; t++) {
        As[ty][tx] = A[row * n + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++)
            sum += As[ty][k] * Bs[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * n + col] = sum;
}
