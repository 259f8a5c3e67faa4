// engine/cuda/device_migration.hpp — migration of one rank's owned particles on the device, the
// sibling of HaloExchange::migrate (decomposition/halo_exchange.hpp), with the same result
// order: the stayers compacted in their order, then the arrivals in receive order (by source
// rank, each source's particles in its order).
//
//   destinations → stable counting sort by rank (kernels/cuda) → offsets to the host (P + 1
//   counts) → leavers packed by destination → ExchangePlan (counts, MPI_Alltoall) → records
//   exchanged (DeviceExchange) → stayers compacted, arrivals appended, owned frame set; the State
//   words of the per-particle fields travel beside the records (the plan scaled by their count)
// Only the P + 1 offsets and the leavers' records cross to the host (none with CUDA-aware MPI).
#pragma once

#include <cstdint>
#include <vector>

#include "base/communicator.hpp"
#include "decomposition/grid_cuts.hpp"
#include "engine/cuda/device_exchange.hpp"
#include "engine/cuda/device_memory.hpp"
#include "engine/cuda/device_particles.hpp"
#include "engine/cuda/launch.hpp"

namespace scanmd::cuda_step {

class DeviceMigration {
 public:
  DeviceMigration(const Communicator& comm, bool cuda_aware)
      : comm_(comm), cuda_aware_(cuda_aware) {}

  // Every owned particle of p to the rank whose box (cuts) holds it; p keeps no ghosts, and its
  // owned particles get home = coord, shift 0. Returns the number that left. Collective.
  std::uint32_t migrate(DeviceParticles& p, const GridCuts& cuts, Int3 coord, Scratch& scratch,
                        cudaStream_t stream);

 private:
  const Communicator& comm_;
  bool cuda_aware_;
  DeviceBuffer<std::uint32_t> key_, perm_, offsets_;
  DeviceBuffer<MigrantRecord> send_, recv_;
  DeviceExchange<MigrantRecord> exchange_;
  // The leavers' State field words, beside their records (none without State fields).
  DeviceBuffer<std::uint64_t> send_words_, recv_words_;
  DeviceExchange<std::uint64_t> words_exchange_;
  std::vector<std::uint32_t> h_offsets_;
  std::vector<std::size_t> send_offsets_;
};

}  // namespace scanmd::cuda_step
