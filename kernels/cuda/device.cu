// kernels/cuda/device.cu — device discovery and error checking for the CUDA kernels (api.hpp).
//
// device_available() is the one place that decides "is there a usable GPU": driver present
// (cudaGetDeviceCount), at least one device, and a one-thread probe kernel actually runs (catches
// "no kernel image for this architecture").  Tests skip and benchmarks print the reason.
#include <cuda_runtime.h>
#include <unistd.h>

#include <string>

#include "kernels/cuda/api.hpp"

namespace scanmd::kernels::cuda {

namespace {
__global__ void probe_kernel(int* out) {
  *out = 42;
}
}  // namespace

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(e) + " (" +
                             cudaGetErrorString(e) + ")");
}

bool device_available(std::string* why) {
  auto fail = [why](const std::string& reason) {
    if (why) *why = reason;
    cudaGetLastError();  // clear the sticky-free error state for later callers
    return false;
  };
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  // Without any NVIDIA kernel driver the runtime says "CUDA driver version is insufficient for
  // CUDA runtime version", which sends one looking for a driver update (issue 31): say that
  // there is none. (Only where the call failed: WSL has GPUs without /proc/driver/nvidia.)
  if (e != cudaSuccess && ::access("/proc/driver/nvidia/version", F_OK) != 0)
    return fail(std::string("no NVIDIA driver on this machine (no /proc/driver/nvidia; the CUDA "
                            "runtime says: ") +
                cudaGetErrorString(e) + ")");
  if (e != cudaSuccess)
    return fail(std::string("cudaGetDeviceCount failed: ") + cudaGetErrorString(e));
  if (count == 0) return fail("no CUDA-capable device found");
  int* d = nullptr;
  e = cudaMalloc(&d, sizeof(int));
  if (e != cudaSuccess) return fail(std::string("cudaMalloc failed: ") + cudaGetErrorString(e));
  probe_kernel<<<1, 1>>>(d);
  e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  int h = 0;
  if (e == cudaSuccess) e = cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
  if (e != cudaSuccess) return fail(std::string("probe kernel failed: ") + cudaGetErrorString(e));
  if (h != 42) return fail("probe kernel produced a wrong result");
  if (why) why->clear();
  return true;
}

}  // namespace scanmd::kernels::cuda
