#include "app/gpu_info.hpp"

#ifdef SCANMD_WITH_CUDA
#include <cuda_runtime.h>

#include "kernels/cuda/api.hpp"
#endif

namespace scanmd {

GpuInventory query_gpus() {
  GpuInventory inv;
#ifdef SCANMD_WITH_CUDA
  inv.compiled = true;
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess) {
    // The reason as the backend choice gives it (no NVIDIA driver at all, or the runtime's).
    std::string why;
    kernels::cuda::device_available(&why);
    inv.why_none = "no usable GPU: " + why;
    cudaGetLastError();
    return inv;
  }
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) continue;
    inv.devices.push_back(
        {prop.name, static_cast<double>(prop.totalGlobalMem) / (1 << 30), prop.major, prop.minor});
  }
  if (inv.devices.empty()) inv.why_none = "no CUDA device found";
#else
  inv.why_none = "this build has no CUDA backend (nvcc was not found at configure time)";
#endif
  return inv;
}

}  // namespace scanmd
