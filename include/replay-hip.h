/*
 * replay-hip.h: the HIP kernel language for kernels built without the HIP headers, as replay capture build
 * --source FILE.hip builds them:
 *
 *   clang-19 -x hip --offload-arch=gfx1030 --cuda-device-only -nogpuinc \
 *       --rocm-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode -ffp-contract=off -include include/replay-hip.h -c K.hip
 *
 * It gives __global__, __device__, __shared__ and kin, dim3, threadIdx, blockIdx, blockDim, gridDim, warpSize,
 * __syncthreads and the fences, the atomic* functions (returning the old value), __shfl, __shfl_up, __shfl_down,
 * __shfl_xor, __ballot, __any, __all, __activemask, __lane_id, the integer intrinsics (__popc, __clz, __ffs,
 * __brev, __mul24, __umul24, __mulhi, __umulhi, __sad...) and the C math functions of float and double, which
 * call AMD's ocml (the device libraries linked with --rocm-device-lib-path, as HIP itself links them).
 *
 * replay capture native-run compiles the same source for x86-64 as C++ with this file after its prelude: there the
 * ids come from the harness's threads, __syncthreads is the group's barrier, the shuffles exchange values
 * between the wave's work-items (every lane of the group must reach them, as on the device), and the math
 * functions are glibc's. Dispatches are whole groups (no partial blocks).
 */
#ifndef REPLAY_HIP_H
#define REPLAY_HIP_H

#if defined(__HIP__)
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __REPLAY_HIP_FN __attribute__((device, always_inline)) inline
#else
/* the native harness (C++, the kernel's source included): a kernel is a function the harness calls, __shared__
 * memory is static (the group's work-items are threads of one process; groups run one after another) */
#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __constant__ static
#define __managed__
#define __REPLAY_HIP_FN static inline __attribute__((unused))
#endif
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __REPLAY_FIRST(a, ...) a
#if defined(__HIP__)
#define __launch_bounds__(...) __attribute__((amdgpu_flat_work_group_size(1, __REPLAY_FIRST(__VA_ARGS__, 0))))
#else
#define __launch_bounds__(...)
#endif

typedef unsigned int uint;
struct __replay_uint3 {
    unsigned x, y, z;
};
struct dim3 {
    unsigned x, y, z;
    __host__ __device__ constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
    __host__ __device__ constexpr dim3(__replay_uint3 v) : x(v.x), y(v.y), z(v.z) {}
};

#if defined(__HIP__) && !defined(__HIP_DEVICE_COMPILE__)
/* the host half of a fat-binary build (clang-19 -x hip without --cuda-device-only): the launch stub's callee */
typedef struct ihipStream_t *hipStream_t;
typedef int hipError_t;
extern "C" hipError_t hipLaunchKernel(const void *function, dim3 grid, dim3 block, void **args, unsigned long shared,
                                      hipStream_t stream);
extern "C" hipError_t hipConfigureCall(dim3 grid, dim3 block, unsigned long shared, hipStream_t stream);
#endif

#define threadIdx (__replay_uint3{__builtin_amdgcn_workitem_id_x(), __builtin_amdgcn_workitem_id_y(), \
        __builtin_amdgcn_workitem_id_z()})
#define blockIdx (__replay_uint3{__builtin_amdgcn_workgroup_id_x(), __builtin_amdgcn_workgroup_id_y(), \
        __builtin_amdgcn_workgroup_id_z()})
#define blockDim (__replay_uint3{(unsigned) __builtin_amdgcn_workgroup_size_x(), \
        (unsigned) __builtin_amdgcn_workgroup_size_y(), (unsigned) __builtin_amdgcn_workgroup_size_z()})
#define gridDim (__replay_uint3{__builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x(), \
        __builtin_amdgcn_grid_size_y() / __builtin_amdgcn_workgroup_size_y(), \
        __builtin_amdgcn_grid_size_z() / __builtin_amdgcn_workgroup_size_z()})

#if defined(__HIP__)
#define warpSize ((int) __builtin_amdgcn_wavefrontsize())
/* a workgroup-scope release before and acquire after s_barrier, as HIP's __syncthreads does */
__REPLAY_HIP_FN void __syncthreads(void) {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
__REPLAY_HIP_FN void __threadfence_block(void) { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup"); }
__REPLAY_HIP_FN void __threadfence(void) { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
__REPLAY_HIP_FN void __threadfence_system(void) { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, ""); }
#else
#define warpSize ((int) __REPLAY_WAVE_SIZE)
__REPLAY_HIP_FN void __syncthreads(void) { __builtin_amdgcn_s_barrier(); }
__REPLAY_HIP_FN void __threadfence_block(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
__REPLAY_HIP_FN void __threadfence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
__REPLAY_HIP_FN void __threadfence_system(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
#endif

/* Atomics: each returns the value before the operation (relaxed ordering, device (agent) scope, as HIP's, so the
 * hardware's own atomic instructions do it: global_atomic_smax and kin, not a compare-and-swap loop). */
#if defined(__HIP__)
#define __REPLAY_EXCHANGE exchange
#define __REPLAY_ATOMIC2(NAME, OP, T) \
    __REPLAY_HIP_FN T NAME(T *p, T v) { return __hip_atomic_##OP(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); }
#else
#define __REPLAY_EXCHANGE exchange_n
#define __REPLAY_ATOMIC2(NAME, OP, T) \
    __REPLAY_HIP_FN T NAME(T *p, T v) { return __atomic_##OP(p, v, __ATOMIC_RELAXED); }
#endif
#define __REPLAY_ATOMIC_INTS(NAME, OP) \
    __REPLAY_ATOMIC2(NAME, OP, int) __REPLAY_ATOMIC2(NAME, OP, unsigned) __REPLAY_ATOMIC2(NAME, OP, unsigned long long)
__REPLAY_ATOMIC_INTS(atomicAdd, fetch_add)
__REPLAY_ATOMIC2(atomicAdd, fetch_add, float)
__REPLAY_ATOMIC2(atomicAdd, fetch_add, double)
__REPLAY_ATOMIC2(atomicSub, fetch_sub, int)
__REPLAY_ATOMIC2(atomicSub, fetch_sub, unsigned)
__REPLAY_ATOMIC_INTS(atomicAnd, fetch_and)
__REPLAY_ATOMIC_INTS(atomicOr, fetch_or)
__REPLAY_ATOMIC_INTS(atomicXor, fetch_xor)
__REPLAY_ATOMIC_INTS(atomicExch, __REPLAY_EXCHANGE)
__REPLAY_ATOMIC_INTS(atomicMin, fetch_min)
__REPLAY_ATOMIC_INTS(atomicMax, fetch_max)
__REPLAY_HIP_FN float atomicExch(float *p, float v) {
    return __builtin_bit_cast(float, __atomic_exchange_n((unsigned *) p, __builtin_bit_cast(unsigned, v), __ATOMIC_RELAXED));
}
#define __REPLAY_CAS(T) \
    __REPLAY_HIP_FN T atomicCAS(T *p, T expected, T desired) { \
        __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
        return expected; \
    }
__REPLAY_CAS(int) __REPLAY_CAS(unsigned) __REPLAY_CAS(unsigned long long)
/* wrapping increment and decrement: old >= limit ? 0 : old + 1, and old == 0 || old > limit ? limit : old - 1 */
__REPLAY_HIP_FN unsigned atomicInc(unsigned *p, unsigned limit) {
    return __builtin_amdgcn_atomic_inc32(p, limit, __ATOMIC_RELAXED, "agent");
}
__REPLAY_HIP_FN unsigned atomicDec(unsigned *p, unsigned limit) {
    return __builtin_amdgcn_atomic_dec32(p, limit, __ATOMIC_RELAXED, "agent");
}

/* Lanes and shuffles (HIP's semantics: a source lane outside the caller's width-wide segment reads the caller's
 * own value), over ds_bpermute. Every lane of the wave must call them. */
__REPLAY_HIP_FN unsigned __lane_id(void) { return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u)); }
__REPLAY_HIP_FN int __replay_bpermute(int lane, int v) { return __builtin_amdgcn_ds_bpermute(lane << 2, v); }
__REPLAY_HIP_FN int __shfl(int v, int src, int width = warpSize) {
    int lane = (int) __lane_id();
    return __replay_bpermute((lane & ~(width - 1)) + (src & (width - 1)), v);
}
__REPLAY_HIP_FN int __shfl_up(int v, unsigned delta, int width = warpSize) {
    int lane = (int) __lane_id();
    int src = lane - (int) delta;
    return __replay_bpermute(src < (lane & ~(width - 1)) ? lane : src, v);
}
__REPLAY_HIP_FN int __shfl_down(int v, unsigned delta, int width = warpSize) {
    int lane = (int) __lane_id();
    return __replay_bpermute((lane & (width - 1)) + (int) delta >= width ? lane : lane + (int) delta, v);
}
__REPLAY_HIP_FN int __shfl_xor(int v, int mask, int width = warpSize) {
    int lane = (int) __lane_id();
    int src = lane ^ mask;
    return __replay_bpermute(src >= ((lane + width) & ~(width - 1)) ? lane : src, v);
}
#define __REPLAY_SHFL_AS(T, NAME, ARG) \
    __REPLAY_HIP_FN T NAME(T v, ARG a, int width = warpSize) { \
        return __builtin_bit_cast(T, NAME(__builtin_bit_cast(int, v), a, width)); \
    }
__REPLAY_SHFL_AS(unsigned, __shfl, int) __REPLAY_SHFL_AS(float, __shfl, int)
__REPLAY_SHFL_AS(unsigned, __shfl_up, unsigned) __REPLAY_SHFL_AS(float, __shfl_up, unsigned)
__REPLAY_SHFL_AS(unsigned, __shfl_down, unsigned) __REPLAY_SHFL_AS(float, __shfl_down, unsigned)
__REPLAY_SHFL_AS(unsigned, __shfl_xor, int) __REPLAY_SHFL_AS(float, __shfl_xor, int)
#if defined(__HIP_DEVICE_COMPILE__) && __AMDGCN_WAVEFRONT_SIZE == 64
#define __REPLAY_BALLOT(p) __builtin_amdgcn_ballot_w64(p)
#elif defined(__HIP_DEVICE_COMPILE__)
#define __REPLAY_BALLOT(p) ((unsigned long long) __builtin_amdgcn_ballot_w32(p))
#elif defined(__HIP__)
#define __REPLAY_BALLOT(p) 0ull /* the host half of a fat-binary build never runs device code */
#elif __REPLAY_WAVE_SIZE == 64
#define __REPLAY_BALLOT(p) ((unsigned long long) __builtin_amdgcn_ballot_w64(p))
#else
#define __REPLAY_BALLOT(p) ((unsigned long long) __builtin_amdgcn_ballot_w32(p))
#endif
__REPLAY_HIP_FN unsigned long long __ballot(int p) { return __REPLAY_BALLOT(p != 0); }
__REPLAY_HIP_FN unsigned long long __activemask(void) { return __REPLAY_BALLOT(1); }
__REPLAY_HIP_FN int __any(int p) { return __ballot(p) != 0; }
__REPLAY_HIP_FN int __all(int p) { return __ballot(p) == __activemask(); }

/* Integer intrinsics */
__REPLAY_HIP_FN int __popc(unsigned x) { return __builtin_popcount(x); }
__REPLAY_HIP_FN int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
__REPLAY_HIP_FN int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned) x); }
__REPLAY_HIP_FN int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long) x); }
__REPLAY_HIP_FN int __ffs(int x) { return __builtin_ffs(x); }
__REPLAY_HIP_FN int __ffsll(long long x) { return __builtin_ffsll(x); }
__REPLAY_HIP_FN unsigned __brev(unsigned x) { return __builtin_bitreverse32(x); }
__REPLAY_HIP_FN int __mul24(int a, int b) { return ((a << 8) >> 8) * ((b << 8) >> 8); }
__REPLAY_HIP_FN unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
__REPLAY_HIP_FN int __mulhi(int a, int b) { return (int) (((long long) a * b) >> 32); }
__REPLAY_HIP_FN unsigned __umulhi(unsigned a, unsigned b) { return (unsigned) (((unsigned long long) a * b) >> 32); }
__REPLAY_HIP_FN unsigned __sad(int a, int b, unsigned c) { return (a > b ? (unsigned) (a - b) : (unsigned) (b - a)) + c; }
__REPLAY_HIP_FN unsigned __usad(unsigned a, unsigned b, unsigned c) { return (a > b ? a - b : b - a) + c; }
__REPLAY_HIP_FN float __saturatef(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x != x ? 0.0f : x; }
__REPLAY_HIP_FN float __fdividef(float a, float b) { return a / b; }
__REPLAY_HIP_FN float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
__REPLAY_HIP_FN int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
__REPLAY_HIP_FN float __uint_as_float(unsigned x) { return __builtin_bit_cast(float, x); }
__REPLAY_HIP_FN unsigned __float_as_uint(float x) { return __builtin_bit_cast(unsigned, x); }

/* Math: the C functions of float (NAMEf) and double (NAME), and C++'s float overloads. On the device they call
 * ocml (__ocml_NAME_f32/_f64, AMD's device math library); natively, glibc's libm. */
#if defined(__HIP__)
#define __REPLAY_MATH1(NAME) \
    extern "C" __device__ float __ocml_##NAME##_f32(float); \
    extern "C" __device__ double __ocml_##NAME##_f64(double); \
    __REPLAY_HIP_FN float NAME##f(float x) { return __ocml_##NAME##_f32(x); } \
    __REPLAY_HIP_FN double NAME(double x) { return __ocml_##NAME##_f64(x); } \
    __REPLAY_HIP_FN float NAME(float x) { return __ocml_##NAME##_f32(x); }
#define __REPLAY_MATH2(NAME) \
    extern "C" __device__ float __ocml_##NAME##_f32(float, float); \
    extern "C" __device__ double __ocml_##NAME##_f64(double, double); \
    __REPLAY_HIP_FN float NAME##f(float x, float y) { return __ocml_##NAME##_f32(x, y); } \
    __REPLAY_HIP_FN double NAME(double x, double y) { return __ocml_##NAME##_f64(x, y); } \
    __REPLAY_HIP_FN float NAME(float x, float y) { return __ocml_##NAME##_f32(x, y); }
#define __REPLAY_MATH3(NAME) \
    extern "C" __device__ float __ocml_##NAME##_f32(float, float, float); \
    extern "C" __device__ double __ocml_##NAME##_f64(double, double, double); \
    __REPLAY_HIP_FN float NAME##f(float x, float y, float z) { return __ocml_##NAME##_f32(x, y, z); } \
    __REPLAY_HIP_FN double NAME(double x, double y, double z) { return __ocml_##NAME##_f64(x, y, z); } \
    __REPLAY_HIP_FN float NAME(float x, float y, float z) { return __ocml_##NAME##_f32(x, y, z); }
#else
/* C++'s <math.h> has the float overloads itself */
#include <math.h>
#define __REPLAY_MATH1(NAME)
#define __REPLAY_MATH2(NAME)
#define __REPLAY_MATH3(NAME)
#endif
__REPLAY_MATH1(sqrt) __REPLAY_MATH1(cbrt) __REPLAY_MATH1(exp) __REPLAY_MATH1(exp2) __REPLAY_MATH1(exp10)
__REPLAY_MATH1(expm1) __REPLAY_MATH1(log) __REPLAY_MATH1(log2) __REPLAY_MATH1(log10) __REPLAY_MATH1(log1p)
__REPLAY_MATH1(sin) __REPLAY_MATH1(cos) __REPLAY_MATH1(tan) __REPLAY_MATH1(asin) __REPLAY_MATH1(acos)
__REPLAY_MATH1(atan) __REPLAY_MATH1(sinh) __REPLAY_MATH1(cosh) __REPLAY_MATH1(tanh) __REPLAY_MATH1(asinh)
__REPLAY_MATH1(acosh) __REPLAY_MATH1(atanh) __REPLAY_MATH1(erf) __REPLAY_MATH1(erfc) __REPLAY_MATH1(fabs)
__REPLAY_MATH1(floor) __REPLAY_MATH1(ceil) __REPLAY_MATH1(trunc) __REPLAY_MATH1(round) __REPLAY_MATH1(rint)
__REPLAY_MATH2(pow) __REPLAY_MATH2(atan2) __REPLAY_MATH2(fmod) __REPLAY_MATH2(fmin) __REPLAY_MATH2(fmax)
__REPLAY_MATH2(hypot) __REPLAY_MATH2(copysign) __REPLAY_MATH2(fdim) __REPLAY_MATH3(fma)
#if defined(__HIP__)
extern "C" __device__ float __ocml_rsqrt_f32(float);
extern "C" __device__ double __ocml_rsqrt_f64(double);
__REPLAY_HIP_FN float rsqrtf(float x) { return __ocml_rsqrt_f32(x); }
__REPLAY_HIP_FN double rsqrt(double x) { return __ocml_rsqrt_f64(x); }
#else
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
#endif
/* the fast intrinsics: ocml's functions on the device (within their ulps), libm's natively */
#if defined(__HIP__)
__REPLAY_HIP_FN float __expf(float x) { return expf(x); }
__REPLAY_HIP_FN float __logf(float x) { return logf(x); }
__REPLAY_HIP_FN float __sinf(float x) { return sinf(x); }
__REPLAY_HIP_FN float __cosf(float x) { return cosf(x); }
__REPLAY_HIP_FN float __powf(float x, float y) { return powf(x, y); }
#else
#define __expf(x) expf(x)
#define __logf(x) logf(x)
#define __sinf(x) sinf(x)
#define __cosf(x) cosf(x)
#define __powf(x, y) powf((x), (y))
#endif
__REPLAY_HIP_FN int min(int a, int b) { return a < b ? a : b; }
__REPLAY_HIP_FN int max(int a, int b) { return a > b ? a : b; }
__REPLAY_HIP_FN unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
__REPLAY_HIP_FN unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
__REPLAY_HIP_FN float min(float a, float b) { return fminf(a, b); }
__REPLAY_HIP_FN float max(float a, float b) { return fmaxf(a, b); }

#undef __REPLAY_ATOMIC2
#undef __REPLAY_ATOMIC_INTS
#undef __REPLAY_CAS
#undef __REPLAY_SHFL_AS
#undef __REPLAY_MATH1
#undef __REPLAY_MATH2
#undef __REPLAY_MATH3
#endif
