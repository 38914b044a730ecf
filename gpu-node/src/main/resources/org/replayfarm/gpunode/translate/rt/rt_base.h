/*
 * rt_base.h: the one header every runtime header of the translator includes first.
 *
 * The generated kernel.cu and every rt_*.h compile two ways from the same text:
 *   - nvcc for sm_90 (__CUDACC__ defined): RT_GPU is 1, RT_FN is __device__ __forceinline__;
 *   - g++ -std=c++17 for the CPU runner (cuda-cpu): RT_GPU is 0, RT_FN is static inline.
 * Semantics are written once, as pure RT_FN functions over raw register bits (uint32_t / uint64_t);
 * a header switches on RT_GPU only where both sides give the same result by different means.
 */
#pragma once

#include <stdint.h>
#include <string.h>
#include <math.h>

#if defined(__CUDACC__)
#define RT_GPU 1
#define RT_FN __device__ __forceinline__
/* a function the kernel calls but that should not be inlined everywhere (large helpers) */
#define RT_FN_NOINLINE __device__ __noinline__
#else
#define RT_GPU 0
#define RT_FN static inline
#define RT_FN_NOINLINE static
#endif

/* Bit casts between raw register bits and the C float types (memcpy: no aliasing questions). */
RT_FN float rt_f32(uint32_t bits) { float f; memcpy(&f, &bits, 4); return f; }
RT_FN uint32_t rt_bits32(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
RT_FN double rt_f64(uint64_t bits) { double d; memcpy(&d, &bits, 8); return d; }
RT_FN uint64_t rt_bits64(double d) { uint64_t b; memcpy(&b, &d, 8); return b; }

/* 64-bit values from and to register pairs. */
RT_FN uint64_t rt_pair(uint32_t lo, uint32_t hi) { return (uint64_t)lo | ((uint64_t)hi << 32); }
RT_FN uint32_t rt_lo(uint64_t v) { return (uint32_t)v; }
RT_FN uint32_t rt_hi(uint64_t v) { return (uint32_t)(v >> 32); }
