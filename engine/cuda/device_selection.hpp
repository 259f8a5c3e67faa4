// engine/cuda/device_selection.hpp — which GPU a rank uses, whether it is usable, and whether the
// MPI library can take device buffers (plain C++; a build without CUDA answers "no GPU" from
// no_cuda.cpp).
//
// Ranks of a node take its devices round robin: device = node-local rank % device count. Only
// that device is probed (a kernel runs on it), so no rank opens a context on a device it will
// not use.
#pragma once

#include <string>

#include "base/communicator.hpp"
#include "engine/config.hpp"

namespace scanmd {

// True when this build has the CUDA backend and a usable device (driver, device, a probe
// kernel runs); otherwise false and *why says what is missing. Never throws.
bool device_usable(std::string* why = nullptr);

// Collective over comm: picks this rank's device, makes it current and probes it. True when
// usable; otherwise false and *why says why. Never throws.
bool select_device(const Communicator& comm, std::string* why = nullptr);

// One line for the log: the current device, the MPI path (CUDA-aware or host-staged) and the
// neighbour fill in effect (SCANMD_CUDA_NL_FILL applied to `configured`); or why no GPU is
// usable.
std::string device_summary(NeighborFill configured = NeighborFill::SegmentedScan);

// Does the MPI library take device buffers (Open MPI's MPIX_Query_cuda_support at run time)?
bool mpi_cuda_aware();
// How halo messages travel, for the log.
std::string mpi_path_name(bool cuda_aware);
// "NVIDIA H100 (cc 9.0, 79.1 GiB), device 0"
std::string device_name(int device);

// SCANMD_CUDA_NL_FILL=segmented|atomic applied to `configured` (std::runtime_error when it
// names neither), and a name for the log.
NeighborFill resolve_fill(NeighborFill configured);
std::string fill_description(NeighborFill fill);

}  // namespace scanmd
