// engine/cuda/device_errors.hpp — the CUDA time step's error flags turned into exceptions with
// context: the particle id(s), their distance or position, the rank.
//
// Device code never prints; kernels raise flags with the lowest offending index
// (DeviceFlagsMirror). At every synchronisation point the backend calls raise_device_errors on
// the freshly fetched mirror, which reads what it needs to name the culprits from device memory.
// The first cause in step order wins (forces of the last step before positions of this one).
#pragma once

#include "base/box.hpp"
#include "engine/cuda/device_neighbor_list.hpp"
#include "engine/cuda/device_particles.hpp"
#include "engine/cuda/launch.hpp"
#include "physics/pair/pair_potential.hpp"

namespace scanmd::cuda_step {

// Where a flag's index points into.
struct ErrorSources {
  const DeviceParticles& particles;
  const DeviceNeighborList& list;
  const std::uint32_t* export_index;  // DeviceHalo::export_index
  Box box;
  PairImages images;
  int rank, ranks;
  long long force_step;  // the step of the last force call: its overflows are reported at it
  const PairPotential& potential;  // the words of a pair overflow
  bool many_body = false;          // EAM: a pair overflow is the EAM compute's (no pair potential)
};

// Throws std::overflow_error or std::runtime_error when `flags` holds an error; else returns.
void raise_device_errors(const DeviceFlags& flags, const ErrorSources& at, cudaStream_t stream);

}  // namespace scanmd::cuda_step
