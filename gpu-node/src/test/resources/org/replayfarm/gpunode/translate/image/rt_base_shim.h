#pragma once
#include <stdint.h>
#include <string.h>
#include <math.h>
#ifdef __CUDACC__
#define RT_FN __device__ __forceinline__
#define RT_GPU 1
#else
#define RT_FN static inline
#define RT_GPU 0
#endif
