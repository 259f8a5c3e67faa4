// tests/gpu/gpu_probe.cpp — "is there a usable CUDA device?" for scripts (ctest wrappers,
// scripts/gpu-check.sh, bench/md/run.sh): prints the device or the reason and exits
//   0   a device is usable (driver, device, and a probe kernel runs)
//   77  none (the reason on stdout: "no CUDA device: <reason>"); 77 is ctest's SKIP code here.
// Needs neither MPI nor anything but the CUDA driver, like the kernels/ tests.
#include <cstdio>
#include <string>

#if defined(SCANMD_TEST_CUDA)
#include <cuda_runtime_api.h>

#include "kernels/cuda/api.hpp"
#endif

int main() {
#if defined(SCANMD_TEST_CUDA)
  std::string why;
  if (!scanmd::kernels::cuda::device_available(&why)) {
    std::printf("no CUDA device: %s\n", why.c_str());
    return 77;
  }
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) == cudaSuccess &&
      cudaGetDeviceProperties(&prop, device) == cudaSuccess)
    std::printf("CUDA device %d: %s (cc %d.%d, %.1f GiB)\n", device, prop.name, prop.major,
                prop.minor, static_cast<double>(prop.totalGlobalMem) / (1 << 30));
  else
    std::printf("CUDA device usable\n");
  return 0;
#else
  std::printf("no CUDA device: this build has no CUDA backend\n");
  return 77;
#endif
}
