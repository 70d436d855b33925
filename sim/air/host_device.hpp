#pragma once
// CT_HD marks a function that the CPU loops and the CUDA kernels of the air solvers both call (contributing.md
// habit 5): __host__ __device__ under nvcc, plain inline otherwise. Private to ct_sim.
#if defined(__CUDACC__)
#define CT_HD __host__ __device__ __forceinline__
#else
#define CT_HD inline
#endif
