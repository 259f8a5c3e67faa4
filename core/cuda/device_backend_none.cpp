// core/cuda/device_backend_none.cpp — the CUDA backend entry points of a build without CUDA
// (nvcc not found at configure time, or SCANMD_SANITIZE): no device is ever usable.
#include <stdexcept>

#include "core/cuda/device_backend.hpp"

namespace scanmd {

namespace {
constexpr const char* kNoCuda =
    "this build has no CUDA backend (nvcc was not found at configure time, or SCANMD_SANITIZE)";
}

bool device_usable(std::string* why) {
  if (why) *why = kNoCuda;
  return false;
}

bool select_device(const Communicator&, std::string* why) { return device_usable(why); }

std::string device_backend_summary(NeighborFill) {
  return std::string("no usable GPU: ") + kNoCuda;
}

std::unique_ptr<DeviceBackend> make_device_backend(const Communicator&, const DeviceConfig&) {
  throw std::runtime_error(std::string("backend cuda: no usable GPU: ") + kNoCuda);
}

}  // namespace scanmd
