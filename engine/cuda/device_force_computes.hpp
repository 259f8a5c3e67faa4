// The CUDA side of the force computes (engine/force_compute.hpp): one class per kind, made from
// the run's ForceComputeInfo list, run in order by the CUDA backend's compute_forces on its
// stream. Plain C++ on the CUDA runtime API; the kernels are in engine/cuda/*.cu.
//
//   DevicePairCompute   the pair constants of the run's style on the device (one species: by
//                       value; several: a table in device memory), and the pair kernel
//                       (forces.cu) over the device neighbour list
//   DeviceEamCompute    the many-body EAM tables (eam, eam/alloy, eam/fs) in device memory, and
//                       the density, embedding and force kernels (eam.cu) with the halo's
//                       density reverse sum and F' forward between them
//   DeviceBondedCompute bonds and angles (physics/bonded/): at each rebuild the terms are listed
//                       on the device by HostBondedCompute's rules (bonded.cu: copies by id,
//                       count → scan → fill; the same terms in the same order) and checked
//                       globally from the count kernel's sums; only an error comes to the host,
//                       where HostBondedCompute's listing words it (the same messages). The
//                       kernel of bonded.cu computes the terms, one thread per term (with a
//                       special_bonds 1-2 weight in (0, 1) each bond's share of the pair terms
//                       first); the special_bonds exclusions are dropped from the device list
//                       (DeviceNeighborList::drop_bonded)
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/box.hpp"
#include "base/communicator.hpp"
#include "decomposition/import_rule.hpp"
#include "engine/cuda/device_flags.hpp"
#include "engine/cuda/device_halo.hpp"
#include "engine/cuda/device_neighbor_list.hpp"
#include "engine/cuda/device_particles.hpp"
#include "engine/force_compute.hpp"
#include "engine/species.hpp"

namespace scanmd {

// What a device compute reads and writes: the device particles (owned, then ghosts, with the
// per-particle fields it declared in particles.fields), the neighbour list of the last rebuild,
// the flags (totals, errors), on one stream; the halo for exchanges between its passes (a
// many-body compute's density sums and forwards).
struct DeviceForceState {
  cuda_step::DeviceParticles& particles;
  cuda_step::DeviceHalo& halo;
  const cuda_step::DeviceNeighborList& list;
  cuda_step::DeviceFlags* flags;  // device memory: pairs, energy, virial accumulate here
  const Box& box;
  PairImages images;
  bool owned_shares_only;  // full shell
  cudaStream_t stream;
  // The step of the pairs' random numbers (styles that read the pairs' motion: DPD, whose
  // velocities are the kPairVelocityField column of particles.fields).
  std::uint64_t step;
  int pair_computes;  // of the list: each term's bound is the list's divided by this
};

// What a device compute may do after a rebuild (every rank, collective): list its own terms
// from the particles and ghosts, and drop pairs from the neighbour list.
struct DeviceRebuildState {
  cuda_step::DeviceParticles& particles;
  cuda_step::DeviceNeighborList& list;
  cuda_step::Scratch& scratch;
  const Box& box;
  const PairRule& rule;
  const Communicator& comm;
  long long step;
  double import_cutoff;  // R (messages)
  cudaStream_t stream;
};

class DeviceForceCompute {
 public:
  virtual ~DeviceForceCompute() = default;
  // After each rebuild's neighbour list is built (collective). Synchronises if it does anything.
  virtual void on_rebuild(DeviceRebuildState&) {}
  // Throws this compute's own errors from freshly fetched flags (the backend's synchronisation
  // points); `particles`: where their indices point; `context`: "step N[, rank R]" of the last
  // force call (step_context), in front of the message.
  virtual void raise_errors(const cuda_step::DeviceFlags&, const cuda_step::DeviceParticles&,
                            const std::string& /*context*/, cudaStream_t) const {}
  // Queues this compute's kernels: forces into particles.f (`first`: the caller zeroed them;
  // else added), energy and virial into the flags when `with_energy`.
  virtual void compute(DeviceForceState& s, bool with_energy, bool first) = 0;
};

// The device side of every compute of `computes`, in order (uploads their constants on
// `stream` and waits for them). Throws std::logic_error for a kind with no CUDA side.
std::vector<std::unique_ptr<DeviceForceCompute>> make_device_computes(
    const std::vector<ForceComputeInfo>& computes, const Species& species, cudaStream_t stream);

}  // namespace scanmd
