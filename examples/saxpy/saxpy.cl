// y[i] = a * x[i] + y[i] for i < n. One work-item per element; the last group is partly idle.
// -nogpulib has no OpenCL work-item builtins: the ids come from the amdgcn builtins, and the group
// size from the COV5 hidden arguments (so the capture exercises the hidden kernarg block too).
__kernel void saxpy(float a, __global const float *x, __global float *y, uint n) {
    uint i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x()
           + __builtin_amdgcn_workitem_id_x();
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}
