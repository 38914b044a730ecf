//! kernel calls_switch
//! groups 2 size 64
//! arg buffer i32 128 rand 55
//! arg buffer i32 128 small 56
//! arg zeros 2048
// Functions that are not inlined (s_swappc_b64 / s_setpc_b64, arguments in VGPRs, a private array on the
// callee's stack, calls from divergent code, a call chain), and dense and sparse switches. No recursion:
// OpenCL C forbids it, and clang 19 sizes the private segment as if there were none.
__attribute__((noinline)) static int mix(int a, int b, int c) {
    return (a ^ (b << 3)) + c * 7 - (a >> 5);
}

__attribute__((noinline)) static uint table_sum(uint seed, uint n) {
    uint t[24];
    for (uint k = 0; k < 24; k++) t[k] = seed * (k + 3) ^ (seed >> k);
    uint s = 0;
    for (uint k = 0; k < n % 24 + 1; k++) s += t[(seed + k * 5) % 24];
    return s;
}

__attribute__((noinline)) static int chain(int x, int depth) {
    int r = mix(x + depth, depth, 1);
    for (int d = depth; d > 0; d--) r = mix(r, x + d - 1, d);
    return r;
}

__attribute__((noinline)) static long sum_digits(long v) {
    long s = 0;
    for (; v >= 10; v /= 10) s += v % 10;
    return s + v;
}

__attribute__((noinline)) static int via_chain(int x, int k) {
    return chain(x, k) ^ (int) sum_digits(x);
}

__attribute__((noinline)) static void write_pair(__global int *o, int p, int q) {
    o[0] = p;
    o[1] = q;
}

static int dense(int k, int x) {
    switch (k) {
    case 0: return x + 1;
    case 1: return x * 3;
    case 2: return x ^ 0x55;
    case 3: return x >> 2;
    case 4: return -x;
    case 5: return x & 0xff;
    case 6: return x | 0x100;
    case 7: return x - 1000;
    case 8: return x * x;
    case 9: return ~x;
    default: return 42;
    }
}

static int sparse(int k) {
    switch (k) {
    case -40: return 1;
    case -3: return 2;
    case 7: return 3;
    case 19: return 4;
    case 1000: return 5;
    case 31: case 32: case 33: return 6;
    default: return 0;
    }
}

__kernel void calls_switch(__global const int *a, __global const int *b, __global int *out) {
    uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
    int x = a[i], k = b[i];
    __global int *o = out + i * 4;
    int r = mix(x, k, (int) i);
    if (k > 0) r += (int) table_sum((uint) x, (uint) k);
    else r -= chain(x, (-k) % 5);
    write_pair(o, r, dense(k % 12, x) + sparse(k));
    int u = a[__builtin_amdgcn_workgroup_id_x()] & 7;   // the same for every lane: a uniform switch
    o[2] = dense(u, k) + (int) sum_digits((long) (x & 0x7fffffff) * 1000003L);
    o[3] = (i & 1) ? via_chain(k, 3) : (int) table_sum((uint) k, i);
}
