//! kernel spmv_csr
//! library
//! groups 2 size 64
//! arg buffer i32 1024 small 86
//! arg buffer f32 128 unit 87
//! arg zeros 512
// A sparse matrix-vector product in CSR form (SHOC's scalar kernel): each row's column indices and values come from
// a generated band (row pointer computed, indices clamped with min/max), y = sum of val * x[col] with mad. mad is
// a fused multiply-add in ocml and here: exact.
kernel void spmv_csr(global const int *cols, global const float *x, global float *y) {
    int row = get_global_id(0);
    int start = row * 8, end = start + 4 + (row & 3);
    float sum = 0.0f;
    for (int j = start; j < end; j++) {
        int c = max(0, min(127, row + cols[j] / 8));
        float v = (float) (cols[j] & 15) * 0.125f - 1.0f;
        sum = mad(v, x[c], sum);
    }
    y[row] = sum;
}
