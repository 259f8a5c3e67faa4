// kernels/hd.hpp — SCANMD_HD marks functions callable from host and device code.
//
// Under nvcc it expands to `__host__ __device__`; in plain C++ it is empty, so headers that use
// it (operators.hpp, physics helpers) compile unchanged in both worlds.
#pragma once

#if defined(__CUDACC__)
#define SCANMD_HD __host__ __device__
#else
#define SCANMD_HD
#endif
