/* Native x86-64 build of the corpus kernels: the OpenCL C spellings and amdgcn builtins the kernels use,
 * mapped onto C11 and pthreads. One thread per work-item; a group's threads run together (barriers are a
 * pthread barrier) and groups run one after another, so function-scope __local variables (static here)
 * are the group's shared memory. */
#include <pthread.h>
#include <stdint.h>
#include <stddef.h>
#define __kernel
#define kernel
#define __global
#define global
#define __constant const
#define constant const
#define __local static
#define local static
#define __private
#define private
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef _Float16 half;
typedef float float2 __attribute__((ext_vector_type(2)));
typedef float float4 __attribute__((ext_vector_type(4)));
typedef int int2 __attribute__((ext_vector_type(2)));
typedef int int4 __attribute__((ext_vector_type(4)));
typedef uint uint4 __attribute__((ext_vector_type(4)));

extern __thread unsigned __replay_lid[3];
extern unsigned __replay_gid[3];
extern unsigned __replay_gsize[3];
extern unsigned __replay_groups[3];
extern pthread_barrier_t __replay_barrier;

#define __builtin_amdgcn_workitem_id_x() (__replay_lid[0])
#define __builtin_amdgcn_workitem_id_y() (__replay_lid[1])
#define __builtin_amdgcn_workitem_id_z() (__replay_lid[2])
#define __builtin_amdgcn_workgroup_id_x() (__replay_gid[0])
#define __builtin_amdgcn_workgroup_id_y() (__replay_gid[1])
#define __builtin_amdgcn_workgroup_id_z() (__replay_gid[2])
#define __builtin_amdgcn_workgroup_size_x() ((unsigned short) __replay_gsize[0])
#define __builtin_amdgcn_workgroup_size_y() ((unsigned short) __replay_gsize[1])
#define __builtin_amdgcn_workgroup_size_z() ((unsigned short) __replay_gsize[2])
#define __builtin_amdgcn_grid_size_x() (__replay_gsize[0] * __replay_groups[0])
#define __builtin_amdgcn_s_barrier() pthread_barrier_wait(&__replay_barrier)
