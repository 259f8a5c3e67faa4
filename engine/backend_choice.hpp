// Which backend runs the time step: run.backend = auto | host | cuda resolved the same way on
// every rank (collective). `host` never touches a GPU; `auto` takes the GPUs when every rank has
// a usable one (each rank probes only the device it would use: local rank % device count) and
// falls back to the host otherwise; `cuda` without a usable GPU on some rank (none, driver too
// old, no kernel image for it, or a build without CUDA) is an error naming the first such rank.
#pragma once

#include <string>

#include "base/communicator.hpp"
#include "engine/config.hpp"

namespace scanmd {

struct BackendChoice {
  Backend backend;     // Host or Cuda
  std::string reason;  // for the log: the device in use, or why there is none
};

// Whether the deck uses something the CUDA backend lacks (a special_bonds 1-2 weight strictly
// between 0 and 1: the pair terms of bonded pairs scaled); `auto` then takes the host.
bool cuda_lacks(const SimulationConfig& config);

// Throws std::runtime_error (on every rank) when `cuda` is requested and some rank has no GPU.
BackendChoice resolve_backend(const Communicator& comm, Backend requested, NeighborFill fill);

}  // namespace scanmd
