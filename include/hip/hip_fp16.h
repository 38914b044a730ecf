/*
 * hip/hip_fp16.h for replay-farm's HIP builds: __half as clang's _Float16 (IEEE binary16 on amdgcn and x86-64 alike)
 * with the conversions sources use most; arithmetic is the compiler's own on _Float16. The prelude (replay-hip.h) is
 * included first on every HIP build.
 */
#pragma once
typedef _Float16 __half;
static inline __device__ __host__ __half __float2half(float f) { return (__half)f; }
static inline __device__ __host__ float __half2float(__half h) { return (float)h; }
static inline __device__ __host__ __half __hadd(__half a, __half b) { return a + b; }
static inline __device__ __host__ __half __hmul(__half a, __half b) { return a * b; }
