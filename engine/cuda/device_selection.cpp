// engine/cuda/device_selection.cpp — see device_selection.hpp.
#include "engine/cuda/device_selection.hpp"

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "kernels/cuda/api.hpp"

namespace scanmd {

bool device_usable(std::string* why) {
  return kernels::cuda::device_available(why);
}

bool select_device(const Communicator& comm, std::string* why) {
  // Every rank takes part in the node split, even one without a device.
  int local = 0;
  try {
    local = comm.node_local_rank();
  } catch (const std::exception& e) {
    if (why) *why = e.what();
    return false;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count <= 0) {
    return device_usable(why);  // false, and says why
  }
  const int device = local % count;
  if (const cudaError_t e = cudaSetDevice(device); e != cudaSuccess) {
    if (why) *why = fmt::format("cudaSetDevice({}): {}", device, cudaGetErrorString(e));
    cudaGetLastError();
    return false;
  }
  std::string reason;
  if (!device_usable(&reason)) {
    if (why) *why = fmt::format("device {}: {}", device, reason);
    return false;
  }
  if (why) why->clear();
  return true;
}

bool mpi_cuda_aware() {
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

std::string mpi_path_name(bool aware) {
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
  return aware ? "CUDA-aware (MPIX_Query_cuda_support() = 1): device buffers to MPI"
               : "host-staged (MPIX_Query_cuda_support() = 0: this MPI has no CUDA support)";
#else
  (void)aware;
  return "host-staged (the MPI library offers no CUDA-awareness query)";
#endif
}

std::string device_name(int device) {
  cudaDeviceProp prop{};
  kernels::cuda::check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  return fmt::format("{} (cc {}.{}, {:.1f} GiB), device {}", prop.name, prop.major, prop.minor,
                     static_cast<double>(prop.totalGlobalMem) / (1 << 30), device);
}

NeighborFill resolve_fill(NeighborFill configured) {
  const char* env = std::getenv("SCANMD_CUDA_NL_FILL");
  if (env == nullptr || *env == '\0') return configured;
  if (const auto fill = value_of<NeighborFill>(kNeighborFillNames, env)) return *fill;
  throw std::runtime_error(fmt::format("SCANMD_CUDA_NL_FILL={}: expected {}", env,
                                       quoted_names<NeighborFill>(kNeighborFillNames)));
}

std::string fill_description(NeighborFill f) {
  return f == NeighborFill::SegmentedScan ? "segmented scan" : "atomic row counters";
}

std::string device_summary(NeighborFill configured) {
  std::string why;
  if (!device_usable(&why)) return "no usable GPU: " + why;
  int device = 0;
  kernels::cuda::check(cudaGetDevice(&device), "cudaGetDevice");
  return fmt::format("{}; MPI: {}; neighbour fill: {}", device_name(device),
                     mpi_path_name(mpi_cuda_aware()), fill_description(resolve_fill(configured)));
}

}  // namespace scanmd
