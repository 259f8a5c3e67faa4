// engine/cuda/no_cuda.cpp — the CUDA backend's entry points in a build without it (nvcc not found
// at configure time, or SCANMD_SANITIZE): no device is ever usable, and asking for the backend
// says why.
#include <stdexcept>

#include "engine/cuda/cuda_backend.hpp"
#include "engine/cuda/device_selection.hpp"

namespace scanmd {

namespace {
constexpr const char* kNoCuda =
    "this build has no CUDA backend (nvcc was not found at configure time, or SCANMD_SANITIZE)";
}

bool device_usable(std::string* why) {
  if (why) *why = kNoCuda;
  return false;
}

bool select_device(const Communicator&, std::string* why) {
  return device_usable(why);
}

std::string device_summary(NeighborFill) {
  return std::string("no usable GPU: ") + kNoCuda;
}

bool mpi_cuda_aware() {
  return false;
}

std::string mpi_path_name(bool) {
  return "host-staged (no CUDA backend)";
}

std::string device_name(int) {
  return "no device";
}

NeighborFill resolve_fill(NeighborFill configured) {
  return configured;
}

std::string fill_description(NeighborFill f) {
  return f == NeighborFill::SegmentedScan ? "segmented scan" : "atomic row counters";
}

std::unique_ptr<StepBackend> make_cuda_backend(const StepSetup&) {
  throw std::runtime_error(std::string("backend cuda: no usable GPU: ") + kNoCuda);
}

}  // namespace scanmd
