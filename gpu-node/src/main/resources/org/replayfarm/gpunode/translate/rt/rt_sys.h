/*
 * rt_sys.h: the system headers of the CPU runner and its runtime (rt_base.h, rt_float.h, rt_cpu_main.cpp), and
 * nothing else. rt_cpu_main.cpp includes it first, so that g++ can take it precompiled: CpuBuild builds
 * rt_sys.h.gch once per compiler and flag set and puts it beside this file for each build (parsing these headers
 * was about 0.4 s of a small translation's 1.0-1.3 s build). Without the .gch g++ reads this file as text: the
 * translation builds the same either way. The GPU build (kernel.cu alone) never includes it.
 */
#ifndef RT_SYS_H
#define RT_SYS_H
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <fenv.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>
#include <string>
#endif
