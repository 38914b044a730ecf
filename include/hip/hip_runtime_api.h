/*
 * hip/hip_runtime_api.h for replay-farm's HIP builds (capture build --source FILE.hip, capture native-run): what this header
 * declares in ROCm — threadIdx and kin, __syncthreads, atomics, shuffles, the launch qualifiers — comes from the
 * project's prelude, replay-hip.h, which every HIP build includes first (-include replay-hip.h). This file exists so
 * that a source's usual first line, #include <hip/hip_runtime_api.h>, compiles; it adds nothing.
 */
#pragma once
